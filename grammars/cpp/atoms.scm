; C++. Captures: see grammars/README.md. The first pattern that matches a node wins.
; Doxygen comments (`/** … */`, `///`) belong to the item below them even across a blank line;
; attributes (`[[nodiscard]]`) and template heads are part of their item.

(comment) @comment

(preproc_include) @import
(using_declaration) @import

; `template <…>` around an item: the item's atom takes it in, its label stays the item's.
(template_declaration (function_definition) @wrapped) @wrapper
(template_declaration (class_specifier) @wrapped) @wrapper
(template_declaration (struct_specifier) @wrapped) @wrapper
(template_declaration (declaration type: (class_specifier body: (_))) @wrapped) @wrapper

(namespace_definition "namespace" @keyword name: (_) @name body: (_) @body) @atom.namespace
(namespace_definition body: (_) @body) @atom.namespace
(linkage_specification "extern" @keyword value: (_) @name body: (declaration_list) @body) @atom.module

; Functions are named by their declarator, under any pointer or reference: an out-of-class
; definition `void Foo::bar()` is the symbol `Foo::bar`; inside a class, a method.
(field_declaration_list
  (function_definition
    type: (_) @keyword
    declarator: (function_declarator declarator: (_) @name)
    body: (_)? @body) @atom.method)
(field_declaration_list
  (function_definition
    type: (_) @keyword
    declarator: (_ declarator: (function_declarator declarator: (_) @name))
    body: (_)? @body) @atom.method)
(field_declaration_list
  (function_definition
    type: (_) @keyword
    declarator: (reference_declarator (function_declarator declarator: (_) @name))
    body: (_)? @body) @atom.method)
(field_declaration_list
  (function_definition declarator: (function_declarator declarator: (_) @name) body: (_)? @body) @atom.method)

(function_definition
  type: (_) @keyword
  declarator: (function_declarator declarator: (_) @name)
  body: (_)? @body) @atom.function
(function_definition
  type: (_) @keyword
  declarator: (_ declarator: (function_declarator declarator: (_) @name))
  body: (_)? @body) @atom.function
(function_definition
  type: (_) @keyword
  declarator: (_ declarator: (_ declarator: (function_declarator declarator: (_) @name)))
  body: (_)? @body) @atom.function
(function_definition
  type: (_) @keyword
  declarator: (reference_declarator (function_declarator declarator: (_) @name))
  body: (_)? @body) @atom.function
; Constructors and destructors have no return type.
(function_definition declarator: (function_declarator declarator: (_) @name) body: (_)? @body) @atom.function
(function_definition body: (_)? @body) @atom.function

(class_specifier "class" @keyword name: (_) @name body: (_) @body) @atom.class
(struct_specifier "struct" @keyword name: (_) @name body: (_) @body) @atom.struct
(union_specifier "union" @keyword name: (_) @name body: (_) @body) @atom.struct
(enum_specifier "enum" @keyword name: (_) @name body: (_) @body) @atom.enum

; `typedef struct { … } point;` takes the typedef's name; `class Foo { … } foo;` and
; `struct S { … };` (a declaration in some positions) are their specifier.
(type_definition type: (struct_specifier name: (_) body: (_)) @wrapped) @wrapper
(type_definition type: (struct_specifier body: (_) @body) declarator: (_) @name) @atom.struct
(type_definition type: (enum_specifier body: (_) @body) declarator: (_) @name) @atom.enum
(type_definition "typedef" @keyword declarator: (_) @name) @atom.type
(declaration type: (class_specifier body: (_)) @wrapped) @wrapper
(declaration type: (struct_specifier body: (_)) @wrapped) @wrapper
(declaration type: (union_specifier body: (_)) @wrapped) @wrapper
(declaration type: (enum_specifier body: (_)) @wrapped) @wrapper
(field_declaration type: (class_specifier body: (_)) @wrapped) @wrapper
(field_declaration type: (struct_specifier body: (_)) @wrapped) @wrapper
(field_declaration type: (enum_specifier body: (_)) @wrapped) @wrapper
(alias_declaration "using" @keyword name: (_) @name) @atom.type
(concept_definition "concept" @keyword name: (_) @name) @atom.type

; Tables at namespace level: `static const Entry kTable[] = { … };`, named under pointers and
; array brackets.
(translation_unit
  (declaration
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
      ]
      value: (initializer_list))) @atom.variable)
(declaration_list
  (declaration
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
      ]
      value: (initializer_list))) @atom.variable)

(preproc_function_def "#define" @keyword name: (_) @name) @atom.macro
(preproc_def "#define" @keyword name: (_) @name) @atom.constant

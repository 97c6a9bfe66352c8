; C. Captures: see grammars/README.md. The first pattern that matches a node wins.
; Doxygen comments (`/** … */`, `///`) belong to the item below them even across a blank line;
; other comments when they touch it.

(comment) @comment

(preproc_include) @import

; Functions are named by their declarator, under any pointers: `char *strdup(…)` is `strdup`.
; The label starts at the return type: `int main`, `char *strdup`.
(function_definition
  type: (_) @keyword
  declarator: (function_declarator declarator: (_) @name)
  body: (_) @body) @atom.function
(function_definition
  type: (_) @keyword
  declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))
  body: (_) @body) @atom.function
(function_definition
  type: (_) @keyword
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
  body: (_) @body) @atom.function
(function_definition body: (_) @body) @atom.function

; `typedef struct node { … } node_t;` is the struct `node`; an anonymous one takes the
; typedef's name. A bare `struct node { … };` is a declaration around its specifier.
(type_definition
  type: (struct_specifier "struct" @keyword name: (_) @name body: (_) @body)) @atom.struct
(type_definition
  type: (union_specifier "union" @keyword name: (_) @name body: (_) @body)) @atom.struct
(type_definition
  type: (enum_specifier "enum" @keyword name: (_) @name body: (_) @body)) @atom.enum
(type_definition type: (struct_specifier body: (_) @body) declarator: (_) @name) @atom.struct
(type_definition type: (union_specifier body: (_) @body) declarator: (_) @name) @atom.struct
(type_definition type: (enum_specifier body: (_) @body) declarator: (_) @name) @atom.enum
(type_definition "typedef" @keyword declarator: (_) @name) @atom.type

(declaration type: (struct_specifier body: (_)) @wrapped) @wrapper
(declaration type: (union_specifier body: (_)) @wrapped) @wrapper
(declaration type: (enum_specifier body: (_)) @wrapped) @wrapper
(struct_specifier "struct" @keyword name: (_) @name body: (_) @body) @atom.struct
(union_specifier "union" @keyword name: (_) @name body: (_) @body) @atom.struct
(enum_specifier "enum" @keyword name: (_) @name body: (_) @body) @atom.enum

; Tables at file level: `static const struct ops ops = { … };`.
(translation_unit
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

; `extern "C" { … }` holds declarations.
(linkage_specification "extern" @keyword value: (_) @name body: (declaration_list) @body) @atom.module

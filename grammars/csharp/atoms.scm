; C#. Captures: see grammars/README.md. The first pattern that matches a node wins.
; `///` XML doc comments belong to the item below them even across a blank line; attributes
; (`[Obsolete]`) and modifiers are inside the declarations.

(comment) @comment

(using_directive) @import
(extern_alias_directive) @import
; `namespace App.Models;` names the namespace of the whole file, as Java's `package` does.
(file_scoped_namespace_declaration) @import

(namespace_declaration "namespace" @keyword name: (_) @name body: (_) @body) @atom.namespace

(class_declaration "class" @keyword name: (_) @name body: (_) @body) @atom.class
(record_declaration "record" @keyword name: (_) @name body: (_)? @body) @atom.class
(struct_declaration "struct" @keyword name: (_) @name body: (_) @body) @atom.struct
(interface_declaration "interface" @keyword name: (_) @name body: (_) @body) @atom.interface
(enum_declaration "enum" @keyword name: (_) @name body: (_) @body) @atom.enum
(delegate_declaration "delegate" @keyword name: (_) @name) @atom.type

(method_declaration returns: (_) @keyword name: (_) @name body: (_)? @body) @atom.method
(constructor_declaration name: (_) @name body: (_)? @body) @atom.method
(destructor_declaration "~" @keyword name: (_) @name body: (_)? @body) @atom.method
(operator_declaration "operator" @keyword body: (_)? @body) @atom.method
(local_function_statement type: (_) @keyword name: (_) @name body: (_)? @body) @atom.function

(property_declaration type: (_) @keyword name: (_) @name accessors: (_)? @body) @atom.field
(indexer_declaration type: (_) @keyword accessors: (_)? @body) @atom.field
(event_declaration "event" @keyword name: (_) @name accessors: (_)? @body) @atom.field
(field_declaration (variable_declaration (variable_declarator name: (_) @name))) @atom.field

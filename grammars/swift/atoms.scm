; Swift. Captures: see grammars/README.md. The first pattern that matches a node wins.
; `///` and `/** … */` doc comments belong to the item below them even across a blank line;
; `@attributes` and modifiers are inside the declarations.

(comment) @comment
(multiline_comment) @comment

(import_declaration) @import

; struct, extension, actor, class and enum are all `class_declaration`: the kind is a field.
(class_declaration declaration_kind: "struct" @keyword name: (_) @name body: (_) @body) @atom.struct
(class_declaration declaration_kind: "enum" @keyword name: (_) @name body: (_) @body) @atom.enum
(class_declaration declaration_kind: "extension" @keyword name: (_) @name body: (_) @body) @atom.impl
(class_declaration declaration_kind: "actor" @keyword name: (_) @name body: (_) @body) @atom.class
(class_declaration declaration_kind: "class" @keyword name: (_) @name body: (_) @body) @atom.class
(protocol_declaration "protocol" @keyword name: (_) @name body: (_) @body) @atom.interface

(class_body (function_declaration "func" @keyword name: (_) @name body: (_)? @body) @atom.method)
(enum_class_body (function_declaration "func" @keyword name: (_) @name body: (_)? @body) @atom.method)
(protocol_body (protocol_function_declaration "func" @keyword name: (_) @name) @atom.method)
(init_declaration name: "init" @name body: (_)? @body) @atom.method
(deinit_declaration "deinit" @keyword body: (_)? @body) @atom.method
(subscript_declaration "subscript" @keyword) @atom.method
(function_declaration "func" @keyword name: (_) @name body: (_)? @body) @atom.function

(class_body (property_declaration name: (_) @name) @atom.field)
(enum_class_body (property_declaration name: (_) @name) @atom.field)
(source_file (property_declaration name: (_) @name) @atom.variable)
(typealias_declaration "typealias" @keyword name: (_) @name) @atom.type

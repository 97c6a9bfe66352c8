; Java. Captures: see grammars/README.md. The first pattern that matches a node wins.
; Annotations and modifiers are inside the declarations; javadoc comments are attached.

(line_comment) @comment
(block_comment) @comment

(package_declaration) @import
(import_declaration) @import

(class_declaration "class" @keyword name: (_) @name body: (_) @body) @atom.class
(record_declaration "record" @keyword name: (_) @name body: (_) @body) @atom.class
(interface_declaration "interface" @keyword name: (_) @name body: (_) @body) @atom.interface
(annotation_type_declaration "@interface" @keyword name: (_) @name body: (_) @body) @atom.interface
(enum_declaration "enum" @keyword name: (_) @name body: (_) @body) @atom.enum

(method_declaration type: (_) @keyword name: (_) @name body: (_)? @body) @atom.method
(constructor_declaration name: (_) @name body: (_) @body) @atom.method
(compact_constructor_declaration name: (_) @name body: (_) @body) @atom.method

(field_declaration declarator: (variable_declarator name: (_) @name)) @atom.field
(constant_declaration declarator: (variable_declarator name: (_) @name)) @atom.constant

; Kotlin. Captures: see grammars/README.md. The first pattern that matches a node wins.
; KDoc comments (`/** … */`) belong to the item below them even across a blank line;
; annotations and modifiers are inside the declarations.

(line_comment) @comment
(block_comment) @comment

(package_header) @import
(import) @import

(class_declaration "interface" @keyword name: (_) @name (class_body)? @body) @atom.interface
(class_declaration "class" @keyword name: (_) @name (enum_class_body) @body) @atom.enum
(class_declaration "class" @keyword name: (_) @name (class_body)? @body) @atom.class
(object_declaration "object" @keyword name: (_) @name (class_body)? @body) @atom.class
(companion_object "companion" @keyword name: (_)? @name (class_body)? @body) @atom.class

; Extension functions keep their receiver in the label: `fun String.slug`.
(class_body (function_declaration "fun" @keyword name: (_) @name (function_body)? @body) @atom.method)
(class_body (secondary_constructor "constructor" @keyword (block)? @body) @atom.method)
(enum_class_body (function_declaration "fun" @keyword name: (_) @name (function_body)? @body) @atom.method)
(function_declaration "fun" @keyword name: (_) @name (function_body)? @body) @atom.function

(class_body (property_declaration (variable_declaration (identifier) @name)) @atom.field)
(source_file (property_declaration (variable_declaration (identifier) @name)) @atom.variable)
(type_alias "typealias" @keyword type: (_) @name) @atom.type

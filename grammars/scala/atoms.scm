; Scala 2 and 3. Captures: see grammars/README.md. The first pattern that matches a node wins.
; Scaladoc comments (`/** … */`) belong to the item below them even across a blank line;
; annotations and modifiers are inside the definitions.

(comment) @comment
(block_comment) @comment

(import_declaration) @import
; `package a.b { … }` holds its items; `package a.b` names the package of the rest of the file.
(package_clause "package" @keyword name: (_) @name body: (_) @body) @atom.namespace
(package_clause) @import
(package_object "object" @keyword name: (_) @name body: (_)? @body) @atom.module

(object_definition "object" @keyword name: (_) @name body: (_)? @body) @atom.class
(class_definition "class" @keyword name: (_) @name body: (_)? @body) @atom.class
(trait_definition "trait" @keyword name: (_) @name body: (_)? @body) @atom.trait
(enum_definition "enum" @keyword name: (_) @name body: (_)? @body) @atom.enum
(given_definition "given" @keyword name: (_)? @name body: (_)? @body) @atom.impl
(extension_definition "extension" @keyword) @atom.impl

(template_body (function_definition "def" @keyword name: (_) @name body: (_)? @body) @atom.method)
(template_body (function_declaration "def" @keyword name: (_) @name) @atom.method)
(function_definition "def" @keyword name: (_) @name body: (_)? @body) @atom.function
(function_declaration "def" @keyword name: (_) @name) @atom.function

(template_body (val_definition pattern: (identifier) @name) @atom.field)
(template_body (var_definition pattern: (identifier) @name) @atom.field)
(compilation_unit (val_definition pattern: (identifier) @name) @atom.variable)
(type_definition "type" @keyword name: (_) @name) @atom.type

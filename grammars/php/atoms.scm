; PHP (with the HTML around `<?php … ?>`). Captures: see grammars/README.md. The first pattern
; that matches a node wins. PHPDoc comments (`/** … */`) belong to the item below them even
; across a blank line; `#[Attributes]` are inside the declarations.

(comment) @comment

(namespace_use_declaration) @import
(expression_statement (require_once_expression)) @import
(expression_statement (require_expression)) @import
(expression_statement (include_once_expression)) @import
(expression_statement (include_expression)) @import

; `namespace App\Models { … }` holds its items; `namespace App\Models;` names the namespace
; of the rest of the file, as Java's `package` does.
(namespace_definition "namespace" @keyword name: (_) @name body: (_) @body) @atom.namespace
(namespace_definition) @import

(class_declaration "class" @keyword name: (_) @name body: (_) @body) @atom.class
(interface_declaration "interface" @keyword name: (_) @name body: (_) @body) @atom.interface
(trait_declaration "trait" @keyword name: (_) @name body: (_) @body) @atom.trait
(enum_declaration "enum" @keyword name: (_) @name body: (_) @body) @atom.enum

(method_declaration "function" @keyword name: (_) @name body: (_)? @body) @atom.method
(function_definition "function" @keyword name: (_) @name body: (_) @body) @atom.function

(property_declaration (property_element name: (_) @name)) @atom.field
(const_declaration "const" @keyword (const_element (name) @name)) @atom.constant

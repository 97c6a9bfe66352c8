; Python. Captures: see grammars/README.md. The first pattern that matches a node wins.

(comment) @comment

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; Decorators belong to the definition they decorate.
(decorated_definition definition: (_) @wrapped) @wrapper

(class_definition
  body: (block
    (function_definition "def" @keyword name: (_) @name body: (_) @body) @atom.method))
(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition "def" @keyword name: (_) @name body: (_) @body) @atom.method)))

(function_definition "def" @keyword name: (_) @name body: (_) @body) @atom.function
(class_definition "class" @keyword name: (_) @name body: (_) @body) @atom.class

; Module-level constants and settings: `ROUTES = [...]`.
(module (expression_statement (assignment left: (identifier) @name)) @atom.constant)

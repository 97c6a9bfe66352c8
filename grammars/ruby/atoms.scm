; Ruby. Captures: see grammars/README.md. The first pattern that matches a node wins.
; A block of `#` lines right above a definition belongs to it.

(comment) @comment

(call method: (identifier) @name (#match? @name "^(require|require_relative|load)$")) @import

(module "module" @keyword name: (_) @name body: (_)? @body) @atom.module
(class "class" @keyword name: (_) @name body: (_)? @body) @atom.class
; `class << self` opens the class's own methods: no name of its own in qualified names.
(singleton_class "class" @keyword body: (_)? @body) @atom.class

; `def self.find` is labelled so; its qualified name is the class's (`User.find`).
(singleton_method "def" @keyword name: (_) @name body: (_)? @body) @atom.method
(method "def" @keyword name: (_) @name body: (_)? @body) @atom.method

; Constants: `ROLES = %w[admin user].freeze`.
(assignment left: (constant) @name) @atom.constant

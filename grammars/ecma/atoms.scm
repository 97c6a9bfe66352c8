; Shared by JavaScript, TypeScript and TSX (not a language of its own): only node types that
; all three grammars have. Captures: see grammars/README.md. The first pattern that matches a
; node wins.

(comment) @comment

(import_statement) @import

; `export …` and `export default …` wrap the declaration they export.
(export_statement declaration: (_) @wrapped) @wrapper

(class_declaration "class" @keyword name: (_) @name body: (_) @body) @atom.class
(function_declaration "function" @keyword name: (_) @name body: (_) @body) @atom.function
(generator_function_declaration "function" @keyword name: (_) @name body: (_) @body) @atom.function
(method_definition name: (_) @name body: (_) @body) @atom.method

; `const f = (…) => {…}`, `var f = function () {…}`
(lexical_declaration
  kind: _ @keyword
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @atom.function
(variable_declaration
  "var" @keyword
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @atom.function
; `const Foo = class {…}`
(lexical_declaration
  kind: _ @keyword
  (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @atom.class
; Object literals are scopes of their methods: `const api = { get() {…} }`.
(lexical_declaration
  kind: _ @keyword
  (variable_declarator name: (identifier) @name value: (object) @body)) @atom.variable
(variable_declaration
  "var" @keyword
  (variable_declarator name: (identifier) @name value: (object) @body)) @atom.variable

; Methods of object literals: `{ get: function () {…}, put: (x) => {…} }`
(pair
  key: (_) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @atom.method
(pair key: (_) @name value: (object) @body) @atom.variable

; `Foo.prototype.bar = function () {…}`, `module.exports.run = () => {…}`
(expression_statement
  (assignment_expression
    left: (member_expression property: (_) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @atom.function

; Other top-level constants, exported or not.
(program (lexical_declaration kind: "const" @keyword (variable_declarator name: (identifier) @name)) @atom.constant)
(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const" @keyword
      (variable_declarator name: (identifier) @name)) @atom.constant))

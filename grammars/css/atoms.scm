; CSS (tree-sitter-css): rule sets and at-rule blocks are scopes labelled by their own
; text, `@media (max-width: 600px)` > `.nav a`. Comments go with the rule below them.

(comment) @comment

(import_statement) @import
(charset_statement) @import
(namespace_statement) @import

; `@keyframes spin { from {…} to {…} }`
(keyframes_statement
  "@keyframes" @keyword
  (keyframes_name) @name
  (keyframe_block_list) @body) @atom.module

; `@media …`, `@supports …`, `@scope …`, and other block at-rules (`@font-face`, `@layer`,
; `@container`, `@page`): labelled by their head, up to the block.
(media_statement (block) @body) @atom.module
(supports_statement (block) @body) @atom.module
(scope_statement (block) @body) @atom.module
(at_rule (block) @body) @atom.module

; `.nav a, .nav button { … }`, nested rule sets included.
(rule_set
  (selectors) @name
  (block) @body) @atom.class

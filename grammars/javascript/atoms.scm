; JavaScript (and JSX). Captures: see grammars/README.md.
; inherits: ecma

(field_definition property: (_) @name) @atom.field

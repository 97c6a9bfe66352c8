; Bash (and sh). Captures: see grammars/README.md. The first pattern that matches a node wins.
; A block of `#` lines right above a function belongs to it.

(comment) @comment

; `source lib.sh` and `. lib.sh` bring in other scripts.
(command name: (command_name) @name (#match? @name "^(source|\\.)$")) @import

; `_tar() { … } && complete -F _tar tar`: the registration belongs to its function.
(list (function_definition) @wrapped) @wrapper

(function_definition "function" @keyword name: (_) @name body: (_) @body) @atom.function
(function_definition name: (_) @name body: (_) @body) @atom.function

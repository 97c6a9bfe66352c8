; Rust. Captures: see grammars/README.md. The first pattern that matches a node wins, so the
; specific patterns (methods inside impls and traits) come before the generic ones.

(line_comment) @comment
(block_comment) @comment
(attribute_item) @attach

(use_declaration) @import
(extern_crate_declaration) @import

; Item macros whose bodies hold items (`cfg_rt! { pub fn spawn() {} }`): parsed as items.
; Every item below has one of these keywords, so a body without them (`bench! { a, b, 1..9 }`)
; holds none and is not parsed again.
(source_file
  (macro_invocation
    (token_tree) @body
    (#match? @body "\\b(fn|impl|trait|struct|union|enum|mod|extern|type|const|static|macro_rules)\\b")) @expand)
(declaration_list
  (macro_invocation
    (token_tree) @body
    (#match? @body "\\b(fn|impl|trait|struct|union|enum|mod|extern|type|const|static|macro_rules)\\b")) @expand)

(declaration_list
  (function_item "fn" @keyword name: (_) @name body: (_) @body) @atom.method)
(declaration_list
  (function_signature_item "fn" @keyword name: (_) @name) @atom.method)

(function_item "fn" @keyword name: (_) @name body: (_) @body) @atom.function
(function_signature_item "fn" @keyword name: (_) @name) @atom.function

(impl_item "impl" @keyword type: (_) @name body: (_)? @body) @atom.impl
(trait_item "trait" @keyword name: (_) @name body: (_) @body) @atom.trait
(struct_item "struct" @keyword name: (_) @name body: (_)? @body) @atom.struct
(union_item "union" @keyword name: (_) @name body: (_) @body) @atom.struct
(enum_item "enum" @keyword name: (_) @name body: (_) @body) @atom.enum
(mod_item "mod" @keyword name: (_) @name body: (_)? @body) @atom.module
(foreign_mod_item body: (_) @body) @atom.module
(type_item "type" @keyword name: (_) @name) @atom.type
(const_item "const" @keyword name: (_) @name) @atom.constant
(static_item "static" @keyword name: (_) @name) @atom.static
(macro_definition "macro_rules!" @keyword name: (_) @name) @atom.macro

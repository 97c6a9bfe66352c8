; Go. Captures: see grammars/README.md. The first pattern that matches a node wins.

(comment) @comment

(package_clause) @import
(import_declaration) @import

; Methods are named by their receiver's type: `func (s *Server) Start` is `Server.Start`.
(method_declaration
  "func" @keyword
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @qualifier
        (pointer_type (type_identifier) @qualifier)
        (generic_type type: (type_identifier) @qualifier)
        (pointer_type (generic_type type: (type_identifier) @qualifier))
      ]))
  name: (_) @name
  body: (_)? @body) @atom.method
(method_declaration "func" @keyword name: (_) @name body: (_)? @body) @atom.method
(function_declaration "func" @keyword name: (_) @name body: (_)? @body) @atom.function

; `type X struct {…}` declares one spec: the declaration is the atom. A grouped
; `type ( … )` has several and stays a block of spec atoms.
(type_declaration "type" @keyword (type_spec) @wrapped) @wrapper
(type_declaration "type" @keyword (type_alias) @wrapped) @wrapper
(type_spec name: (_) @name type: (struct_type (field_declaration_list) @body)) @atom.struct
(type_spec name: (_) @name type: (interface_type) @body) @atom.interface
(type_spec name: (_) @name) @atom.type
(type_alias name: (_) @name) @atom.type

(source_file (const_declaration "const" @keyword (const_spec) @wrapped) @wrapper)
(source_file (const_declaration (const_spec name: (_) @name) @atom.constant))
(source_file (var_declaration "var" @keyword (var_spec) @wrapped) @wrapper)
(source_file (var_declaration (var_spec name: (_) @name) @atom.variable))

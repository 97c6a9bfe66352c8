; TypeScript. Captures: see grammars/README.md.
; inherits: ecma

; Decorators of class members are siblings of the member in class bodies.
(class_body (decorator) @attach)

; `declare class X {}`, `declare module "x" {}`
(ambient_declaration (_) @wrapped) @wrapper

(abstract_class_declaration "class" @keyword name: (_) @name body: (_) @body) @atom.class
(interface_declaration "interface" @keyword name: (_) @name body: (_) @body) @atom.interface
(enum_declaration "enum" @keyword name: (_) @name body: (_) @body) @atom.enum
(type_alias_declaration "type" @keyword name: (_) @name value: (_) @body) @atom.type
(internal_module "namespace" @keyword name: (_) @name body: (_) @body) @atom.namespace
(module "module" @keyword name: (_) @name body: (_) @body) @atom.module

(function_signature "function" @keyword name: (_) @name) @atom.function
(method_signature name: (_) @name) @atom.method
(abstract_method_signature name: (_) @name) @atom.method
(public_field_definition name: (_) @name) @atom.field

; Vue single-file components, parsed with tree-sitter-html (no Vue grammar loads into
; tree-sitter 0.27). `<script>`/`<style>` are injections (see `sfc`); `<template>` is a
; scope of its own, its markup blocks of elements.
; inherits: sfc

(element
  (start_tag) @keyword (#match? @keyword "^<template[\\s>]")) @atom.module

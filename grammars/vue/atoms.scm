; Vue single-file components, parsed with tree-sitter-html (no Vue grammar loads into
; tree-sitter 0.27). `<script>`/`<style>` are injections (see `sfc`); the component's
; `<template>` is a scope of its own, its markup blocks of elements. Nested slot templates
; (`<template v-slot:item="{ … }">`, with attributes) are not: their long start tags would
; fill every header.
; inherits: sfc

(element
  (start_tag) @keyword (#match? @keyword "^<template(\\s+lang\\s*=[^>]*)?\\s*>$")) @atom.module

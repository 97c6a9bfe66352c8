; HTML source, parsed with tree-sitter-html. The CLI decodes `.html` and `.htm` files as
; documents by default (their text as Markdown, headings as sections: crates/engine/src/decode);
; this row chunks HTML as source: `.xhtml`, HTML strings given to the library, and builds
; without the `html` document feature. Landmark and sectioning elements are scopes labelled by
; their start tag (`<nav class="toc">`, `<section id="install">`, a long one cut); `<script>`
; and `<style>` are injections (see `sfc`).
; inherits: sfc

(element
  (start_tag) @keyword
  (#match? @keyword "^<(header|nav|main|article|section|aside|footer|form|figure|details|dialog)[\\s>/]")) @atom.module

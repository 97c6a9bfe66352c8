; Single-file components (Vue through tree-sitter-html, Svelte through tree-sitter-svelte-ng) and
; HTML source: no language of its own, the patterns `vue`, `svelte` and `html` share.
; `<script>` and `<style>` are injections: their text is parsed with the language their `lang`
; attribute names (a registry name or extension: `ts`, `typescript`, `scss`), else with the
; one the capture names, and their atoms tile the element, which is a scope labelled by its
; start tag (`<script setup lang="ts">` > `class Foo` > `method bar`).

(comment) @comment

(script_element
  (start_tag
    (attribute) @language (#match? @language "^lang\\s*=")) @keyword
  (raw_text) @body) @inject.javascript

(script_element
  (start_tag) @keyword
  (raw_text) @body) @inject.javascript

(style_element
  (start_tag
    (attribute) @language (#match? @language "^lang\\s*=")) @keyword
  (raw_text) @body) @inject.css

(style_element
  (start_tag) @keyword
  (raw_text) @body) @inject.css

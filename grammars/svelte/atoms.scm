; Svelte components (tree-sitter-svelte-ng): `<script>`/`<script context="module">` and
; `<style>` are injections (see `sfc`); the markup is blocks of elements and `{#if}` /
; `{#each}` blocks.
; inherits: sfc

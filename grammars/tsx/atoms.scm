; TSX: TypeScript with JSX. Captures: see grammars/README.md.
; inherits: typescript

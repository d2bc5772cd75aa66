// UI: being built; see docs/ARCHITECTURE.md.

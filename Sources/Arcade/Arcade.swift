// Arcade: being built; see docs/ARCHITECTURE.md.

// Game2048: being built; see docs/ARCHITECTURE.md.

// GuessPicture: being built; see docs/ARCHITECTURE.md.

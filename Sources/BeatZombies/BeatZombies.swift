// BeatZombies: being built; see docs/ARCHITECTURE.md.

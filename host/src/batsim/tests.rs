//! Unit tests of the Batsim files.

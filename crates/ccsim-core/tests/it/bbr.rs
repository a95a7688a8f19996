//! Whole-run checks of BBR v1 (being written).

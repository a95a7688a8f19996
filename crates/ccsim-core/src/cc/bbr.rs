//! BBR v1, as Linux `net/ipv4/tcp_bbr.c` runs it (being written; not yet registered).

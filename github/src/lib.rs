//! irgate's GitHub client.

//! The hot path of an intercepting Minecraft proxy.

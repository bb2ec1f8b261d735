//! The wire protocol between a host and a live controller (the firmware on a management
//! board, or a thread in the host's tests): versioned, framed, bounded, retry-safe.
//!
//! - [`frame`]: a frame is a payload and its CRC-32, COBS-stuffed, ended by a zero byte.
//! - [`message`]: the payloads, postcard-encoded [`message::Envelope`]s of a
//!   [`message::Request`] (hello, arrival, completion, mapping event, page of decisions,
//!   status, reset) or a [`message::Response`] (capacities, task id, utility earned, a page
//!   of decisions with their fates, status, fault), each with the request's sequence number.
//! - [`serve`]: the controller's side: a loop over a byte [`serve::Port`] that runs each
//!   request through a [`crate::Controller`] over the caller's buffers, answers retries from
//!   its cache, and damaged frames with a fault.
//!
//! The host's side (the clock, the cluster, the pending completions and the digest, with
//! retries and fault injection) is `kairos_host::live`. docs/firmware.md describes every
//! message and field.

pub mod frame;
pub mod message;
pub mod serve;

#[cfg(test)]
mod tests;

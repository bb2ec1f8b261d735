//! Framing of the wire protocol: a payload, its CRC-32, COBS-encoded, then one zero byte.
//!
//! COBS (consistent overhead byte stuffing) removes every zero byte from the frame at a cost
//! of one byte in 254, so a zero always ends a frame: a receiver that joins a stream midway,
//! or loses bytes, finds the next frame at the next zero. The CRC-32 (IEEE 802.3, the one of
//! zip and Ethernet) catches a corrupted or truncated frame, which becomes a [`FrameError`]
//! rather than a message. Sizes are bounded: a frame longer than the receiver's buffer is
//! dropped whole ([`FrameError::TooLong`]), up to its ending zero.
//!
//! The CRC is the `crc` crate's and the stuffing the `cobs` crate's (both `no_std`, well
//! kept; `cobs` is postcard's own); this file holds the frame's layout, its errors and the
//! stream reader. Nothing here allocates or panics on bad input.

use serde::{Deserialize, Serialize};

/// Bytes of the CRC after the payload.
pub const CRC_LEN: usize = 4;

/// Why received bytes are not a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameError {
    /// More bytes before the ending zero than the receiver holds.
    TooLong,
    /// A COBS code byte points past the frame's end.
    BadStuffing,
    /// Shorter than a CRC.
    TooShort,
    /// The CRC does not match the payload.
    BadCrc,
    /// The caller's output buffer is too small for the encoded frame.
    BufferFull,
}

impl core::fmt::Display for FrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            FrameError::TooLong => "frame longer than the receive buffer",
            FrameError::BadStuffing => "frame's COBS stuffing is corrupt",
            FrameError::TooShort => "frame shorter than its CRC",
            FrameError::BadCrc => "frame's CRC does not match (corrupted or truncated)",
            FrameError::BufferFull => "output buffer too small for the frame",
        })
    }
}

impl core::error::Error for FrameError {}

/// The CRC-32 of `bytes` (IEEE 802.3, the `crc` crate's `CRC_32_ISO_HDLC`: reflected
/// polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF; `crc32(b"123456789") ==
/// 0xCBF43926`).
///
/// The `crc` crate's default 256-entry table (1 KiB of flash) rather than a hand-written
/// one: docs/firmware.md ("The wire protocol's checksum and stuffing") has what it costs on
/// the image.
pub fn crc32(bytes: &[u8]) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    CRC.checksum(bytes)
}

/// The most bytes a frame of a `payload`-byte payload takes on the wire, ending zero included.
pub const fn max_encoded_len(payload: usize) -> usize {
    let n = payload + CRC_LEN;
    n + n / 254 + 1 + 1
}

/// Writes the frame of `payload` (CRC, COBS, ending zero) to `out`; returns its length.
///
/// The stuffing is the `cobs` crate's streaming encoder (the one postcard's COBS flavour
/// uses), fed the payload and then its CRC, so that no copy of the two is made.
pub fn encode(payload: &[u8], out: &mut [u8]) -> Result<usize, FrameError> {
    let crc = crc32(payload).to_le_bytes();
    let mut w = cobs::CobsEncoder::new(out);
    w.push(payload).map_err(|_| FrameError::BufferFull)?;
    w.push(&crc).map_err(|_| FrameError::BufferFull)?;
    let end = w.finalize();
    *out.get_mut(end).ok_or(FrameError::BufferFull)? = 0;
    Ok(end + 1)
}

/// Decodes, in place, the frame `bytes` (what came before an ending zero, without it):
/// undoes the COBS stuffing, checks the CRC and returns the payload.
pub fn decode(bytes: &mut [u8]) -> Result<&[u8], FrameError> {
    // A zero cannot be inside a frame (it ends one); the crate would stop there and decode
    // the prefix, so it is refused here as the stuffing error it is.
    if bytes.contains(&0) {
        return Err(FrameError::BadStuffing);
    }
    let write = if bytes.is_empty() {
        0
    } else {
        cobs::decode_in_place(bytes).map_err(|_| FrameError::BadStuffing)?
    };
    if write < CRC_LEN {
        return Err(FrameError::TooShort);
    }
    let (payload, crc) = bytes[..write].split_at(write - CRC_LEN);
    let crc = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if crc32(payload) != crc {
        return Err(FrameError::BadCrc);
    }
    Ok(payload)
}

/// Gathers a byte stream into frames, in a buffer `B` (an array, a `&mut [u8]` or a `Vec`)
/// of at least [`max_encoded_len`] of the largest payload expected.
pub struct Reader<B> {
    buf: B,
    len: usize,
    /// The current frame outgrew the buffer: its bytes are dropped up to its ending zero.
    overflow: bool,
    /// The last frame's payload, decoded in place: `buf[..last]`.
    last: usize,
}

impl<B: AsMut<[u8]> + AsRef<[u8]>> Reader<B> {
    /// A reader over `buf` that has seen nothing.
    pub const fn new(buf: B) -> Reader<B> {
        Reader {
            buf,
            len: 0,
            overflow: false,
            last: 0,
        }
    }

    /// Takes one byte; at a frame's ending zero, returns its payload or why it is not one.
    /// An empty frame (two zeros in a row, or a zero first) is skipped: a sender may send a
    /// zero to end whatever partial frame the receiver holds.
    pub fn push(&mut self, byte: u8) -> Option<Result<&[u8], FrameError>> {
        let buf = self.buf.as_mut();
        if byte != 0 {
            match buf.get_mut(self.len) {
                Some(b) => {
                    *b = byte;
                    self.len += 1;
                }
                None => self.overflow = true,
            }
            return None;
        }
        let len = core::mem::take(&mut self.len);
        self.last = 0;
        if core::mem::take(&mut self.overflow) {
            return Some(Err(FrameError::TooLong));
        }
        if len == 0 {
            return None;
        }
        match decode(&mut buf[..len]) {
            Ok(p) => {
                self.last = p.len();
                Some(Ok(&self.buf.as_ref()[..self.last]))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// The payload of the last frame [`Reader::push`] returned, until the next byte comes
    /// (empty if it was not a sound frame).
    pub fn last(&self) -> &[u8] {
        &self.buf.as_ref()[..self.last]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn crc_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    fn roundtrip(payload: &[u8]) {
        let mut out = [0u8; 2048];
        let n = encode(payload, &mut out).unwrap();
        assert!(n <= max_encoded_len(payload.len()));
        assert_eq!(out[n - 1], 0);
        assert!(!out[..n - 1].contains(&0));
        let mut r = Reader::new([0u8; 2048]);
        for &b in &out[..n - 1] {
            assert!(r.push(b).is_none());
        }
        assert_eq!(r.push(0).unwrap().unwrap(), payload);
    }

    /// The wire bytes of known frames: the layout (payload, CRC little-endian, COBS, zero)
    /// does not depend on which implementation stuffs it.
    #[test]
    fn known_frames() {
        let mut out = [0u8; 16];
        // Payload [0x11, 0x00, 0x22]; CRC-32 of it, little-endian, then COBS.
        let crc = crc32(&[0x11, 0x00, 0x22]).to_le_bytes();
        assert!(!crc.contains(&0));
        let n = encode(&[0x11, 0x00, 0x22], &mut out).unwrap();
        let want = [0x02, 0x11, 0x06, 0x22, crc[0], crc[1], crc[2], crc[3], 0];
        assert_eq!(&out[..n], &want[..]);
        // An empty payload is its CRC (0 for no bytes: four zeros) stuffed.
        let n = encode(&[], &mut out).unwrap();
        assert_eq!(&out[..n], &[1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn a_zero_inside_a_frame_is_bad_stuffing() {
        let mut out = [0u8; 32];
        let n = encode(b"abc", &mut out).unwrap();
        let mut f = out;
        f[2] = 0;
        assert_eq!(decode(&mut f[..n - 1]), Err(FrameError::BadStuffing));
        assert_eq!(decode(&mut []), Err(FrameError::TooShort));
    }

    #[test]
    fn long_runs_without_zeros() {
        roundtrip(&[]);
        roundtrip(&[0]);
        roundtrip(&[7; 253]);
        roundtrip(&[7; 254]);
        roundtrip(&[7; 255]);
        roundtrip(&[7; 1000]);
    }

    #[test]
    fn corruption_is_an_error() {
        let mut out = [0u8; 64];
        let n = encode(b"hello, controller", &mut out).unwrap();
        for i in 0..n - 1 {
            let mut f = out;
            f[i] ^= 0x10;
            if f[i] == 0 {
                continue;
            }
            assert!(decode(&mut f[..n - 1]).is_err(), "flip at {i}");
        }
        // Truncated.
        let mut f = out;
        assert!(decode(&mut f[..n - 3]).is_err());
    }

    #[test]
    fn overlong_frames_are_dropped_whole() {
        let mut r = Reader::new([0u8; 8]);
        for _ in 0..20 {
            assert!(r.push(1).is_none());
        }
        assert_eq!(r.push(0), Some(Err(FrameError::TooLong)));
        assert_eq!(r.push(0), None);
        let mut out = [0u8; 16];
        let n = encode(b"ok", &mut out).unwrap();
        let mut got = None;
        for &b in &out[..n] {
            if let Some(p) = r.push(b) {
                got = Some(p.map(|p| p.len()));
            }
        }
        assert_eq!(got, Some(Ok(2)));
    }

    #[test]
    fn small_output_buffer_is_an_error() {
        let mut out = [0u8; 5];
        assert_eq!(encode(b"abcdef", &mut out), Err(FrameError::BufferFull));
        assert_eq!(encode(b"", &mut []), Err(FrameError::BufferFull));
    }

    proptest! {
        #[test]
        fn encode_decode_roundtrip(payload in proptest::collection::vec(any::<u8>(), 0..1500)) {
            roundtrip(&payload);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut r = Reader::new([0u8; 256]);
            for &b in &bytes {
                let _ = r.push(b);
            }
            let mut copy = bytes.clone();
            let _ = decode(&mut copy);
        }
    }
}

//! Identifiers and addresses that look like the providers' but come from a counter mixed with
//! the configured seed: the same seed and the same requests always give the same ids, and two
//! seeds give different ones (so a test cannot depend on an id by accident).

/// A deterministic source of ids and addresses.
#[derive(Debug, Clone)]
pub(crate) struct Ids {
    seed: u64,
    counter: u64,
}

impl Ids {
    pub(crate) fn new(seed: u64) -> Self {
        Self { seed, counter: 0 }
    }

    /// The next 64 pseudo-random bits (SplitMix64 over seed + counter).
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        let mut z = self
            .seed
            .wrapping_add(self.counter.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A version-4-shaped UUID (Runcrate cluster and instance ids, Together ids).
    pub(crate) fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_be_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_be_bytes());
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .to_string()
    }

    /// A short lower-case hex tag for host names.
    pub(crate) fn tag(&mut self) -> String {
        format!("{:06x}", self.next_u64() & 0xff_ffff)
    }

    /// A public address from the documentation ranges (RFC 5737), so nothing real is named.
    pub(crate) fn public_ipv4(&mut self) -> String {
        let n = self.next_u64();
        let net = ["192.0.2", "198.51.100", "203.0.113"][(n % 3) as usize];
        format!("{net}.{}", 1 + (n >> 8) % 254)
    }

    /// A private address in 10.0.0.0/8.
    pub(crate) fn private_ipv4(&mut self) -> String {
        let n = self.next_u64();
        format!("10.{}.{}.{}", (n >> 16) % 256, (n >> 8) % 256, 1 + n % 254)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_ids_other_seed_other_ids() {
        let (mut a, mut b, mut c) = (Ids::new(7), Ids::new(7), Ids::new(8));
        let first = a.uuid();
        assert_eq!(first, b.uuid());
        assert_ne!(first, c.uuid());
        assert_eq!(first.len(), 36);
        assert_eq!(&first[14..15], "4");
        assert!(a.public_ipv4().split('.').count() == 4);
    }
}

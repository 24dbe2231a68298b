//! The crate's sorts, all stable (equal elements keep their order), so that
//! the native binary and the WebAssembly build (web/wasm) order equal keys
//! alike.
//!
//! Natively each is std's stable sort. In WebAssembly every sort goes
//! through one non-generic sort of indices ([`sort_indices`]) and then moves
//! the elements into place: std's sort, instantiated for each element type and
//! comparison, was about 90 KB of the module's code (380 functions); this is
//! one instance of it plus a small loop per caller. Both are O(n log n).

use std::cmp::Ordering;

/// Sorts `v` by `compare`, stable.
pub fn sort_by<T>(v: &mut [T], compare: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(not(target_family = "wasm"))]
    v.sort_by(compare);
    #[cfg(target_family = "wasm")]
    sort_through_indices(v, compare);
}

/// [`sort_by`] in WebAssembly (compiled everywhere, so that its tests run natively).
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
fn sort_through_indices<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = sort_indices(v.len(), &mut |a, b| compare(&v[a], &v[b]));
    permute(order, &mut |a, b| v.swap(a, b));
}

/// Sorts `v` by the key `key` gives each element, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in ascending order, stable.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The indices `0..n` in the order `compare` (of two indices) puts them,
/// stable: `order[i]` is the index of the element that goes to position `i`.
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
#[inline(never)]
fn sort_indices(n: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves the element at `order[i]` to position `i`, for every `i` (`order` is
/// a permutation of `0..n`), with `swap` (of two positions; not generic, so
/// one copy serves every element type): at most `n` swaps, each putting one
/// element in its place.
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
#[inline(never)]
fn permute(order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    // dest[k]: the position the element now at k goes to.
    let mut dest = vec![0; order.len()];
    for (i, &from) in order.iter().enumerate() {
        dest[from] = i;
    }
    for i in 0..dest.len() {
        while dest[i] != i {
            let d = dest[i];
            swap(i, d);
            dest.swap(i, d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_by_key() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        sort_by_key(&mut v, |p| p.0);
        assert_eq!(v, vec![(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
        let mut w = vec![5, 2, 9, 2, 0];
        sort(&mut w);
        assert_eq!(w, vec![0, 2, 2, 5, 9]);
        sort_by(&mut w, |a, b| b.cmp(a));
        assert_eq!(w, vec![9, 5, 2, 2, 0]);
    }

    /// The WebAssembly path orders as std's stable sort does, equal keys included.
    #[test]
    fn indices_path_equals_std_stable_sort() {
        let mut rng = fastrand::Rng::with_seed(7);
        for len in [0, 1, 2, 5, 20, 21, 100, 1000] {
            let v: Vec<(u8, u32)> = (0..len).map(|i| (rng.u8(0..6), i)).collect();
            let mut ours = v.clone();
            sort_through_indices(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = v.clone();
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "len {len}");
        }
        let mut turned = vec!['d', 'a', 'c', 'b'];
        permute(vec![1, 3, 2, 0], &mut |a, b| turned.swap(a, b));
        assert_eq!(turned, vec!['a', 'b', 'c', 'd']);
    }
}

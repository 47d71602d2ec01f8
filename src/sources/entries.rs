//! A JSON list read one entry at a time: each entry is handed on as soon
//! as it is read and dropped after, so a list of 100,000 tests is never
//! held (the pytest-json-report and CTRF readers' `tests`).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

/// A list (or `null`) whose entries of type `T` go to `each`; reads as
/// `true` when it was a list. `what` is what the list holds, for the
/// error of a value of another type ("a sequence of tests").
pub(crate) struct Entries<'s, T, F> {
    each: &'s mut F,
    what: &'static str,
    entry: PhantomData<fn() -> T>,
}

impl<'s, T, F> Entries<'s, T, F> {
    pub(crate) fn new(what: &'static str, each: &'s mut F) -> Self {
        Entries {
            each,
            what,
            entry: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>, F: FnMut(T)> DeserializeSeed<'de> for Entries<'_, T, F> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for Entries<'_, T, F> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while let Some(entry) = seq.next_element::<T>()? {
            (self.each)(entry);
        }
        Ok(true)
    }
}

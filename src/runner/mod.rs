//! Running pytest: a validated request ([`params`]) becomes an argv
//! ([`command`]), a supervised process group ([`process`]), and, read back
//! through the sources, one [`Run`](crate::model::Run) or an error
//! ([`execute`] drives it; [`conclude`] reads what pytest left behind). The only stage that does I/O on the project.

pub mod command;
pub mod conclude;
pub mod coverage;
pub mod execute;
pub mod params;
pub mod process;
pub mod warm;

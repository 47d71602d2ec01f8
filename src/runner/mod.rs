//! Running pytest: a validated request ([`params`]) becomes an argv
//! ([`command`]), a supervised process group ([`process`]), and, read back
//! through the sources, one [`Run`](crate::model::Run) or an error
//! ([`execute`]). The only stage that does I/O on the project.

pub mod command;
pub mod execute;
pub mod params;
pub mod process;

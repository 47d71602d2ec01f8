//! The transports: the command line ([`cli`]), the MCP server over stdio
//! ([`server`]), and `report`, which reads result files the user names
//! ([`report`]); `plan` ([`plan`]) splits a collection into shards, and
//! [`shard`] picks a job's. They map a request onto the runner or the sources, and
//! [`respond`] turns what comes back into the answer in the requested format;
//! [`tools`] describes the server's tools.

pub mod cli;
pub mod dispatch;
pub mod kept;
pub mod plan;
pub mod remember;
pub mod report;
pub mod respond;
pub mod server;
pub mod shard;
pub mod tools;

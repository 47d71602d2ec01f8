//! The MCP server: `execute_tests` and `discover_tests` over stdio (rmcp).
//!
//! Each tool is its request type (`request`): its description and input
//! schema come from the type, raw arguments are read into it and validated
//! by `params` (ARCHITECTURE.md: wrong types and unknown keys get our
//! field/rule/value error, not rmcp's generic one).
//! Errors follow the request's `format` (docs/errors.md): `json` gives
//! JSON-RPC errors with ADR-007 codes and data; `markdown` (the default)
//! gives tool results with `isError: true` whose text is the Markdown
//! rendering, so every client shows them to the model. Results and
//! Markdown errors carry the
//! structured result (`structuredContent`, `render::structured`); the
//! complete JSON result of a shortened answer is kept as a resource
//! (`runs`) and linked from the answer. Each call runs pytest on a
//! blocking thread with its own cancellation: `notifications/cancelled`,
//! the client closing stdin, or SIGTERM/SIGINT to the server end that
//! call's process group at once. stdout carries only the protocol; logs go
//! to stderr.

use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::budget::{Budget, DEFAULT_MCP_TOKENS};
use crate::frontend::kept::{self, Kept, Runs};
use crate::frontend::remember;
use crate::frontend::respond::{self, Answer, ErrorObject, ToolAnswer};
use crate::model::rerun::RerunHint;
use crate::request::{
    DiscoverTestsRequest, ExecuteTestsRequest, OutputFormat, ToolRequest, invalid,
};
use crate::runner::execute::{self, RunError, Settings};

/// The server: settings fixed at start, and the complete results of the
/// last shortened answers (`runs`), the one thing calls share.
#[derive(Clone)]
pub struct Server {
    settings: Arc<Settings>,
    tools: Arc<Vec<Tool>>,
    runs: Arc<Mutex<Runs>>,
}

impl Server {
    pub fn new(settings: Settings) -> Server {
        Server {
            settings: Arc::new(settings),
            tools: Arc::new(tools()),
            runs: Arc::default(),
        }
    }

    fn runs(&self) -> MutexGuard<'_, Runs> {
        // A panic while the lock was held left no half-made entry behind.
        self.runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub use super::tools::tools;

/// The request's format, read before validation so that even a refused
/// request gets its error in the format it asked for (`markdown` when the
/// value is missing or not a known format).
fn requested_format(args: &JsonObject) -> OutputFormat {
    let named = args.get("format").and_then(Value::as_str);
    named
        .and_then(|s| OutputFormat::of_tool(Some(s)))
        .unwrap_or_default()
}

/// An answer as MCP gives it: a tool result (`isError` for an error in
/// Markdown) with its structured result and, when it was shortened, a
/// `resource_link` to the kept complete result; or the call's JSON-RPC
/// error.
fn respond(tool: ToolAnswer, link: Option<Resource>) -> Result<CallToolResponse, ErrorData> {
    match tool.answer {
        Answer::Text { text, is_error, .. } => {
            let mut content = vec![ContentBlock::text(text)];
            content.extend(link.map(ContentBlock::ResourceLink));
            let mut result = if is_error {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            };
            result.structured_content = tool.structured;
            Ok(result.into())
        }
        Answer::Error { error, .. } => Err(error_data(error)),
    }
}

/// A kept result as `resources/list` and a `resource_link` describe it.
fn resource(kept: &Kept) -> Resource {
    Resource::new(kept.uri(), format!("{}-{}", kept.tool, kept.number))
        .with_title(format!("Complete result #{} of {}", kept.number, kept.tool))
        .with_description(kept.headline.clone())
        .with_mime_type("application/json")
        .with_size(kept.json.len() as u64)
}

/// Whether the client's protocol has `resource_link` content (2025-06-18
/// on); an older client gets none, the result is still listed.
fn links_understood(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_none_or(|v| v >= ProtocolVersion::V_2025_06_18)
}

/// A tool answer's budget: the request's `max_tokens`, else the default
/// (both formats: an agent's context does not care which it gets).
fn tool_budget(max_tokens: Option<usize>) -> Budget {
    Budget::tokens(max_tokens.unwrap_or(DEFAULT_MCP_TOKENS))
}

fn error_data(error: ErrorObject) -> ErrorData {
    ErrorData::new(
        ErrorCode(error.code as i32),
        error.message,
        Some(error.data),
    )
}

fn internal(message: String) -> ErrorData {
    ErrorData::internal_error(
        format!("Internal server error: {message}"),
        Some(json!({"detail": message})),
    )
}

impl Server {
    /// A tool's answer as MCP gives it; a shortened answer's complete
    /// result is kept first, and linked to.
    fn reply(
        &self,
        tool: &'static str,
        answer: ToolAnswer,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut answer = answer;
        let kept = answer
            .full
            .take()
            .and_then(|json| self.runs().keep(tool, answer.headline.clone(), json));
        // Also in the structured result: some clients show a model only that.
        if let (Some(kept), Some(Value::Object(structured))) = (&kept, &mut answer.structured) {
            structured.insert("full_result".into(), Value::from(kept.uri()));
        }
        let link = kept
            .as_ref()
            .filter(|_| links_understood(ctx))
            .map(resource);
        respond(answer, link)
    }

    /// Runs blocking work (a pytest process) on its own thread with a
    /// cancellation token that fires with the request's.
    async fn blocking<T: Send + 'static>(
        &self,
        ctx: &RequestContext<RoleServer>,
        what: &str,
        work: impl FnOnce(&Settings, &CancellationToken) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let cancel = ctx.ct.child_token();
        let settings = self.settings.clone();
        tokio::task::spawn_blocking(move || work(&settings, &cancel))
            .await
            .map_err(|e| internal(format!("the {what}'s thread failed: {e}")))
    }

    async fn execute_tests(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let format = requested_format(&args);
        let params = match ExecuteTestsRequest::from_json(&Value::Object(args))
            .and_then(|r| r.validate(&self.settings.root, self.settings.default_timeout))
        {
            Ok(p) => p,
            Err(e) => return respond(respond::tool_invalid(&e, format), None),
        };
        let budget = tool_budget(params.max_tokens);
        let token = ctx.meta.get_progress_token();
        let peer = ctx.peer.clone();
        let runtime = tokio::runtime::Handle::current();
        let outcome = self
            .blocking(&ctx, "test run", move |settings, cancel| {
                let result = execute::run_tests(settings, &params, cancel, &mut |p| {
                    let Some(token) = token.clone() else { return };
                    let mut note = ProgressNotificationParam::new(token, p.done as f64);
                    if let Some(total) = p.total {
                        note = note.with_total(total as f64);
                    }
                    if let Some(current) = &p.current {
                        note = note.with_message(current.clone());
                    }
                    // A client that went away is not this run's problem.
                    let _ = runtime.block_on(peer.notify_progress(note));
                });
                // Recorded on this thread too: the store and git are I/O.
                result.map(|mut run| {
                    let keeping = settings.history.as_ref();
                    if let Some(warning) =
                        remember::after_run(&mut run, keeping, settings.root.path())
                    {
                        tracing::warn!("{warning}");
                        run.notes.push(warning);
                    }
                    run
                })
            })
            .await?;
        let answer = match outcome {
            Ok(mut run) => {
                run.rerun_hint = Some(RerunHint::Tool);
                respond::tool_run(&run, format, &budget)
            }
            Err(RunError::Failed(e)) => respond::tool_exec_error(&e, format, &budget, false),
            Err(RunError::Refused(e)) => respond::tool_invalid(&e, format),
        };
        self.reply(ExecuteTestsRequest::TOOL, answer, &ctx)
    }

    async fn discover_tests(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let format = requested_format(&args);
        let params = match DiscoverTestsRequest::from_json(&Value::Object(args))
            .and_then(|r| r.validate(&self.settings.root, self.settings.default_timeout))
        {
            Ok(p) => p,
            Err(e) => return respond(respond::tool_invalid(&e, format), None),
        };
        let budget = tool_budget(params.max_tokens);
        let outcome = self
            .blocking(&ctx, "discovery", move |settings, cancel| {
                execute::discover(settings, &params, cancel)
            })
            .await?;
        let answer = match outcome {
            Ok(d) => respond::tool_discovery(&d, format, &budget),
            Err(e) => respond::tool_exec_error(&e, format, &budget, true),
        };
        self.reply(DiscoverTestsRequest::TOOL, answer, &ctx)
    }
}

/// The shape of a run's headline, in the view's own words, for the
/// server's instructions: `Test SUCCESS|FAILURE|NO TESTS (<secs>s) — <n>
/// run, <n> failed, ...`.
fn headline_shape() -> String {
    use crate::render::view::{self, Verdict};
    let words = [Verdict::Success, Verdict::Failure, Verdict::NoTests].map(Verdict::word);
    let counts = crate::model::Counts {
        total: 7,
        failed: 3,
        ..Default::default()
    };
    let phrase = view::counts_phrase_of(&counts)
        .replacen('7', "<n>", 1)
        .replacen('3', "<n>", 1);
    view::headline(
        "Test",
        Verdict::Success,
        Some(0.0),
        &format!("{phrase}, ..."),
    )
    .replacen(Verdict::Success.word(), &words.join("|"), 1)
    .replacen("0.0s", "<secs>s", 1)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("pytest-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Runs pytest in the project at {} (fixed when the server started). Use \
                 discover_tests to list tests and execute_tests to run them; answers are \
                 Markdown unless format 'json' is asked for, and every result also comes as \
                 structuredContent (status, counts, failure groups; the Markdown answer too, \
                 as markdown). Answers fit max_tokens \
                 (default {}). For more detail: run one failing test by its id (node_ids) to \
                 see its failure in full, rerun only what failed with last_failed, or read \
                 the complete JSON result of a shortened answer from the resource it links \
                 to ({}<n>; the last {} are kept). execute_tests' Markdown opens with \
                 '{}' \
                 (SUCCESS only when pytest exited 0; a FAILURE with every test passed says \
                 why on the next line), then the new failures first and the flaky ones \
                 last, collection errors and skip reasons; its JSON has exit_code, \
                 exit_reason, summary, changes, history, tests, json_report, text_output \
                 and collection_errors. discover_tests' Markdown has a '### <file>' \
                 heading per file; its JSON tests (node_id, module, class, function, \
                 file, line), count and collection_errors. workers needs pytest-xdist \
                 installed in the project, retries pytest-rerunfailures, affected \
                 pytest-testmon (whose first run runs every test and records).",
                self.settings.root.path().display(),
                crate::text::thousands(DEFAULT_MCP_TOKENS),
                kept::URI_PREFIX,
                kept::KEPT_RESULTS,
                headline_shape(),
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = self.runs().list().map(resource).collect();
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let runs = self.runs();
        let kept = runs.read(&request.uri).map_err(|missing| {
            ErrorData::resource_not_found(missing.to_string(), Some(json!({"uri": request.uri})))
        })?;
        let contents = ResourceContents::text(kept.json.to_string(), kept.uri())
            .with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "execute_tests" => self.execute_tests(args, ctx).await,
            "discover_tests" => self.discover_tests(args, ctx).await,
            other => Err(error_data(ErrorObject::from(&invalid(
                "name",
                "must be execute_tests or discover_tests",
                other,
            )))),
        }
    }

    /// A `tools/call` whose params rmcp cannot read (arguments that are not
    /// an object, a missing name) lands here: refuse it as invalid params
    /// naming what was wrong, instead of rmcp's "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == "tools/call" {
            let params = request.params.clone().unwrap_or(Value::Null);
            let (field, detail, received) = match params.get("arguments") {
                Some(args) if !args.is_object() && !args.is_null() => {
                    ("arguments", "must be a JSON object", args.clone())
                }
                _ => (
                    "name",
                    "must be the name of a tool (a string)",
                    params.get("name").cloned().unwrap_or(Value::Null),
                ),
            };
            return Err(error_data(ErrorObject::from(&invalid(
                field, detail, received,
            ))));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }
}

/// A transport that cancels `eof` when the client closes stdin, so every
/// run in flight is ended at once (rmcp alone waits 5 s first).
struct EofWatch<T> {
    inner: T,
    eof: CancellationToken,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for EofWatch<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.eof.cancel();
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// The signals on which the server ends every run in flight and exits.
const STOP_SIGNALS: [nix::sys::signal::Signal; 2] = [
    nix::sys::signal::Signal::SIGTERM,
    nix::sys::signal::Signal::SIGINT,
];

/// Serves MCP on stdin/stdout until the client goes away or the server gets
/// SIGTERM/SIGINT. Every run in flight is ended before this returns.
pub async fn serve(settings: Settings) -> Result<(), String> {
    let shutdown = CancellationToken::new();
    let signals = shutdown.clone();
    tokio::spawn(async move {
        let Ok(stop) = crate::runner::process::stop_signals(&STOP_SIGNALS) else {
            return;
        };
        tokio::select! {
            signal = stop => tracing::info!("{}: ending every run", signal.as_str()),
            () = signals.cancelled() => {}
        }
        signals.cancel();
    });
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport = EofWatch {
        inner: AsyncRwTransport::<RoleServer, _, _>::new_server(stdin, stdout),
        eof: shutdown.clone(),
    };
    let service = match Server::new(settings)
        .serve_with_ct(transport, shutdown.clone())
        .await
    {
        Ok(service) => service,
        // The client left before initializing: nothing to serve.
        Err(e) if shutdown.is_cancelled() => {
            tracing::info!("client went away before initializing: {e}");
            return Ok(());
        }
        Err(e) => return Err(format!("MCP handshake failed: {e}")),
    };
    let reason = service.waiting().await;
    shutdown.cancel();
    tracing::info!("server stopped: {reason:?}");
    Ok(())
}

//! `ai-rulez mcp`: the same `.ai-rulez/` tree served to coding agents over MCP (stdio,
//! newline-delimited JSON-RPC) with rmcp, the official Rust SDK. This module holds the server
//! state (confinement root, session memory, cached projects kept fresh by a file watcher) and
//! the protocol glue; the tools call one library function each (see [`tools`]).

pub mod args;
pub mod framing;
pub mod resources;
pub mod tools;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServiceExt as _};

use crate::error::{Error, Result};
use crate::project::{self, Project};
use crate::retrieval::Session;

/// A loaded project, reloaded when its watcher reports a change.
struct Cached {
    project: Arc<Project>,
    dirty: Arc<AtomicBool>,
    _watcher: Option<notify::RecommendedWatcher>,
}

#[derive(Default)]
struct State {
    session: Session,
    projects: HashMap<PathBuf, Cached>,
}

/// The MCP server.
pub struct Server {
    /// Canonical directory every `working_directory` must resolve inside.
    pub root: PathBuf,
    tools: Vec<Tool>,
    state: Mutex<State>,
}

impl Server {
    /// A server confined to `root` (canonicalised).
    ///
    /// Errors: `root` does not exist.
    pub fn new(root: &Path) -> Result<Self> {
        Ok(Self {
            root: fs_err::canonicalize(root)?,
            tools: tools::all_tools(),
            state: Mutex::new(State::default()),
        })
    }

    /// Resolves where a call looks for its project: `working_directory` (relative to the root),
    /// else the folder of an absolute `path`, else the root. It must lie inside the root after
    /// symlinks are resolved.
    pub(crate) fn start_for(
        &self,
        working_directory: Option<&str>,
        path: Option<&str>,
    ) -> std::result::Result<PathBuf, String> {
        let candidate = match (working_directory, path) {
            (Some(directory), _) => self.root.join(directory),
            (None, Some(path)) if Path::new(path).is_absolute() => {
                let mut folder = PathBuf::from(path);
                while !folder.is_dir() {
                    if !folder.pop() {
                        break;
                    }
                }
                folder
            }
            _ => self.root.clone(),
        };
        let resolved = candidate
            .canonicalize()
            .map_err(|_| format!("`{}` does not exist", candidate.display()))?;
        if !resolved.starts_with(&self.root) {
            if working_directory.is_none() {
                // An absolute path outside the root cannot pick the project; use the root's.
                return Ok(self.root.clone());
            }
            return Err(format!(
                "`{}` is outside the directory this server may use ({}); start the server with `--root` to allow it",
                resolved.display(),
                self.root.display()
            ));
        }
        Ok(resolved)
    }

    fn project_at(state: &mut State, start: &Path) -> Result<Arc<Project>> {
        let (root, _, _) = project::discover(start)?;
        if let Some(cached) = state.projects.get(&root)
            && !cached.dirty.load(Ordering::Acquire)
        {
            return Ok(cached.project.clone());
        }
        let dirty = Arc::new(AtomicBool::new(false));
        let mut warnings = Vec::new();
        let loaded = Arc::new(project::load(&root, &mut warnings)?);
        let watcher = watch(&loaded, &dirty);
        state.projects.insert(
            root,
            Cached {
                project: loaded.clone(),
                dirty,
                _watcher: watcher,
            },
        );
        Ok(loaded)
    }

    /// Runs a reading tool on the (fresh) project around `start`, with the session.
    pub(crate) fn with_project<T>(
        &self,
        start: &Path,
        run: impl FnOnce(&Project, &mut Session) -> std::result::Result<T, String>,
    ) -> std::result::Result<T, String> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| "server state is poisoned; restart the server".to_owned())?;
        let project = Self::project_at(&mut state, start).map_err(|error| error.to_string())?;
        run(&project, &mut state.session)
    }

    /// Runs a writing tool; writes are serialised by the state lock, and the project is marked
    /// stale afterwards so the next call sees the change.
    pub(crate) fn with_project_mut<T>(
        &self,
        start: &Path,
        run: impl FnOnce(&Project) -> Result<T>,
    ) -> std::result::Result<T, String> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| "server state is poisoned; restart the server".to_owned())?;
        let project = Self::project_at(&mut state, start).map_err(|error| error.to_string())?;
        let result = run(&project).map_err(|error| error.to_string());
        if let Some(cached) = state.projects.get(&project.root) {
            cached.dirty.store(true, Ordering::Release);
        }
        result
    }
}

/// Watches the project's config folder; any event marks the cache stale. Without a watcher
/// (for example when inotify is unavailable) the project is reloaded on every call.
fn watch(project: &Project, dirty: &Arc<AtomicBool>) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let flag = dirty.clone();
    let watcher = notify::recommended_watcher(move |_event| {
        flag.store(true, Ordering::Release);
    });
    let Ok(mut watcher) = watcher else {
        dirty.store(true, Ordering::Release);
        return None;
    };
    let target = if project.config_dir_relative.is_empty() {
        project.root.clone()
    } else {
        project.config_dir.clone()
    };
    if watcher
        .watch(&target, notify::RecursiveMode::Recursive)
        .is_err()
    {
        dirty.store(true, Ordering::Release);
        return None;
    }
    Some(watcher)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "ai-rulez serves this repository's rules. Call get_rules with the paths you will edit and a one-sentence task before editing; use search_rules for a topic and get_context for everything that applies to a path.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let result = match tools::call(self, &request.name, request.arguments.as_ref()) {
            Ok(result) => result,
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        Ok(resources::list())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let root = self.root.clone();
        let contents = self
            .with_project(&root, |project, _| resources::read(project, &request.uri))
            .map_err(|message| ErrorData::invalid_params(message, None))?;
        Ok(rmcp::model::ReadResourceResult::new(contents).into())
    }
}

/// Serves MCP over stdin/stdout until stdin closes; confined to `root`.
///
/// Errors: the runtime cannot start, `root` does not exist, or stdio fails.
pub fn serve(root: &Path) -> Result<()> {
    let server = Server::new(root)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let (service_side, our_side) = tokio::io::duplex(1024 * 1024);
        let (our_read, our_write) = tokio::io::split(our_side);
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt as _;
            let mut stdout = tokio::io::stdout();
            while let Some(line) = receiver.recv().await {
                if stdout.write_all(line.as_bytes()).await.is_err()
                    || stdout.write_all(b"\n").await.is_err()
                {
                    break;
                }
                if stdout.flush().await.is_err() {
                    break;
                }
            }
        });
        let input = tokio::spawn(framing::pump_input(
            tokio::io::BufReader::new(tokio::io::stdin()),
            our_write,
            sender.clone(),
        ));
        let output = tokio::spawn(framing::pump_output(
            tokio::io::BufReader::new(our_read),
            sender,
        ));
        let service = server
            .serve(service_side)
            .await
            .map_err(|error| Error::Usage(format!("MCP initialisation failed: {error}")))?;
        service.waiting().await.ok();
        input.abort();
        output.await.ok();
        writer.await.ok();
        Ok(())
    })
}

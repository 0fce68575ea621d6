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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, ServerInitializeError};
use rmcp::{ErrorData, ServiceExt as _};

use crate::error::{Error, Result};
use crate::project::{self, Project};
use crate::retrieval::{Catalog, Session};

/// A loaded project with its catalog (search index, compiled scopes), reloaded when its watcher
/// reports a change; a reading call then only matches and ranks.
struct Cached {
    catalog: Arc<Catalog>,
    dirty: Arc<AtomicBool>,
    barrier: Arc<Barrier>,
    _watcher: Option<notify::RecommendedWatcher>,
}

/// The highest barrier number a project's watcher has seen. File events arrive on the watcher's
/// thread some time after the change; a call writes a numbered barrier file into a folder the
/// same watcher observes and waits for its event. Events of one watcher arrive in order, so once
/// the barrier is seen, every change made before the call has marked the cache stale: a hand edit
/// is seen by the very next call, without a race.
#[derive(Default)]
struct Barrier {
    seen: Mutex<u64>,
    changed: Condvar,
}

impl Barrier {
    fn advance(&self, number: u64) {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = (*seen).max(number);
            self.changed.notify_all();
        }
    }

    /// Waits until `number` is seen; false when it was not seen in time.
    fn wait_for(&self, number: u64) -> bool {
        let Ok(seen) = self.seen.lock() else {
            return false;
        };
        self.changed
            .wait_timeout_while(seen, BARRIER_PATIENCE, |seen| *seen < number)
            .is_ok_and(|(seen, _)| *seen >= number)
    }
}

/// How long a call waits for its barrier event before it reloads the project to be safe.
const BARRIER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Default)]
struct State {
    session: Session,
    projects: HashMap<PathBuf, Cached>,
    /// Parsed items per project root, reused across reloads: after an edit only the changed
    /// files are parsed again.
    parses: HashMap<PathBuf, crate::content::ParseCache>,
}

/// The MCP server.
pub struct Server {
    /// Canonical directory every `working_directory` must resolve inside.
    pub root: PathBuf,
    /// Canonical directory the server started in: the default project, and what a relative
    /// `working_directory` is resolved against.
    pub start: PathBuf,
    tools: Vec<Tool>,
    state: Mutex<State>,
    /// Private folder for barrier files (see [`Barrier`]); `None` when it cannot be created, and
    /// then every call reloads the project.
    barriers: Option<tempfile::TempDir>,
    next_barrier: AtomicU64,
}

impl Server {
    /// A server started in `start` and confined to `root` (both canonicalised).
    ///
    /// Errors: a directory does not exist, or `start` lies outside `root`.
    pub fn new(start: &Path, root: &Path) -> Result<Self> {
        let start = fs_err::canonicalize(start)?;
        let root = fs_err::canonicalize(root)?;
        if !start.starts_with(&root) {
            return Err(Error::Usage(format!(
                "the server starts in {} but --root {} does not contain it; pick a --root that does",
                start.display(),
                root.display()
            )));
        }
        Ok(Self {
            root,
            start,
            tools: tools::all_tools(),
            state: Mutex::new(State::default()),
            barriers: tempfile::Builder::new()
                .prefix("ai-rulez-mcp-")
                .tempdir()
                .ok(),
            next_barrier: AtomicU64::new(0),
        })
    }

    /// Resolves where a call looks for its project: `working_directory` (relative to the start
    /// directory), else the folder of an absolute `path`, else the start directory. It must lie
    /// inside the root after symlinks are resolved.
    pub(crate) fn start_for(
        &self,
        working_directory: Option<&str>,
        path: Option<&str>,
    ) -> std::result::Result<PathBuf, String> {
        let candidate = match (working_directory, path) {
            // `--root` widens what may be reached; the default stays where the server started.
            (Some(directory), _) => self.start.join(directory),
            (None, Some(path)) if Path::new(path).is_absolute() => {
                let mut folder = PathBuf::from(path);
                while !folder.is_dir() {
                    if !folder.pop() {
                        break;
                    }
                }
                folder
            }
            _ => self.start.clone(),
        };
        let resolved = candidate
            .canonicalize()
            .map_err(|_| format!("`{}` does not exist", candidate.display()))?;
        if !resolved.starts_with(&self.root) {
            if working_directory.is_none() {
                // An absolute path outside the root cannot pick the project; use the default.
                return Ok(self.start.clone());
            }
            return Err(format!(
                "`{}` is outside the directory this server may use ({}); start the server with `--root` to allow it",
                resolved.display(),
                self.root.display()
            ));
        }
        Ok(resolved)
    }

    /// Makes sure every file event from before this call has reached `cached` (see [`Barrier`]).
    fn settle(&self, cached: &Cached) {
        let Some(folder) = &self.barriers else {
            cached.dirty.store(true, Ordering::Release);
            return;
        };
        let number = self.next_barrier.fetch_add(1, Ordering::AcqRel) + 1;
        let file = folder.path().join(number.to_string());
        if fs_err::write(&file, b"").is_err() || !cached.barrier.wait_for(number) {
            cached.dirty.store(true, Ordering::Release);
        }
        fs_err::remove_file(&file).ok();
    }

    fn catalog_at(&self, state: &mut State, start: &Path) -> Result<Arc<Catalog>> {
        let (root, _, _) = project::discover(start)?;
        if let Some(cached) = state.projects.get(&root) {
            self.settle(cached);
            if !cached.dirty.load(Ordering::Acquire) {
                return Ok(cached.catalog.clone());
            }
        }
        let dirty = Arc::new(AtomicBool::new(false));
        let barrier = Arc::new(Barrier::default());
        let mut warnings = Vec::new();
        // A file that does not load (invalid UTF-8, broken YAML) must not take the whole project
        // down: the other items are served and the reply names the broken file.
        let parses = state.parses.entry(root.clone()).or_default();
        let (loaded, errors) = project::load_lenient_cached(&root, &mut warnings, Some(parses))?;
        let problems: Vec<String> = errors
            .iter()
            .flat_map(|error| {
                error
                    .to_string()
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        // Diagnostics go to stderr, the log stream; stdout carries only protocol messages.
        for problem in &problems {
            eprintln!("ai-rulez mcp: left out: {problem}");
        }
        let loaded = Arc::new(loaded);
        // The watcher is set up before the catalog is built, so an edit made meanwhile marks
        // the fresh entry stale instead of being missed.
        let watcher = watch(
            &loaded,
            &dirty,
            &barrier,
            self.barriers.as_ref().map(tempfile::TempDir::path),
        );
        let catalog = Arc::new(Catalog::new(loaded, problems));
        state.projects.insert(
            root,
            Cached {
                catalog: catalog.clone(),
                dirty,
                barrier,
                _watcher: watcher,
            },
        );
        Ok(catalog)
    }

    /// Runs a reading tool on the (fresh) project around `start`, with the session.
    pub(crate) fn with_project<T>(
        &self,
        start: &Path,
        run: impl FnOnce(&Catalog, &mut Session) -> std::result::Result<T, String>,
    ) -> std::result::Result<T, String> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| "server state is poisoned; restart the server".to_owned())?;
        let catalog = self
            .catalog_at(&mut state, start)
            .map_err(|error| error.to_string())?;
        run(&catalog, &mut state.session)
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
        let catalog = self
            .catalog_at(&mut state, start)
            .map_err(|error| error.to_string())?;
        let project = &catalog.project;
        let result = run(project).map_err(|error| error.to_string());
        if let Some(cached) = state.projects.get(&project.root) {
            cached.dirty.store(true, Ordering::Release);
        }
        result
    }
}

/// Watches the project's config folder; any event marks the cache stale. The same watcher
/// observes the barrier folder and reports barrier numbers instead. Without a watcher (for
/// example when inotify is unavailable) the project is reloaded on every call.
fn watch(
    project: &Project,
    dirty: &Arc<AtomicBool>,
    barrier: &Arc<Barrier>,
    barriers: Option<&Path>,
) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let flag = dirty.clone();
    let seen = barrier.clone();
    let barrier_folder = barriers.map(Path::to_path_buf);
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            flag.store(true, Ordering::Release);
            return;
        };
        if let Some(folder) = &barrier_folder
            && !event.paths.is_empty()
            && event.paths.iter().all(|path| path.starts_with(folder))
        {
            let highest = event
                .paths
                .iter()
                .filter_map(|path| path.file_name()?.to_str()?.parse::<u64>().ok())
                .max();
            if let Some(number) = highest {
                seen.advance(number);
            }
            return;
        }
        // Reading the tree (the reload itself) reports access events; counting those would mark
        // the fresh cache stale at once and reload on every call. Any other event may mean a
        // change.
        if event.kind.is_access() {
            return;
        }
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
        || barriers.is_some_and(|folder| {
            watcher
                .watch(folder, notify::RecursiveMode::NonRecursive)
                .is_err()
        })
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
        let start = self.start.clone();
        let contents = self
            .with_project(&start, |catalog, _| {
                resources::read(&catalog.project, &request.uri)
            })
            .map_err(|message| ErrorData::invalid_params(message, None))?;
        Ok(rmcp::model::ReadResourceResult::new(contents).into())
    }
}

/// Serves MCP over stdin/stdout until stdin closes, for the project around `start`; tools may
/// reach anything inside `root`.
///
/// Errors: the runtime cannot start, a directory does not exist, or stdio fails.
pub fn serve(start: &Path, root: &Path) -> Result<()> {
    let server = Server::new(start, root)?;
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
        // Shared by both pumps: the protocol version agreed in `initialize`, and batches whose
        // replies are being gathered.
        let exchange = Arc::new(framing::Exchange::default());
        let input = tokio::spawn(framing::pump_input(
            tokio::io::BufReader::new(tokio::io::stdin()),
            our_write,
            sender.clone(),
            exchange.clone(),
        ));
        let output = tokio::spawn(framing::pump_output(
            tokio::io::BufReader::new(our_read),
            sender,
            exchange,
        ));
        // Input that ends before (or while) the client initialises is a clean end, not a
        // failure: the exit code is 0 as for any other end of input. Replies already queued
        // (for example -32700 for a cut last line) are still written before exiting.
        let outcome = match server.serve(service_side).await {
            Ok(service) => {
                service.waiting().await.ok();
                Ok(())
            }
            Err(
                ServerInitializeError::ConnectionClosed(_)
                | ServerInitializeError::ExpectedInitializeRequest(None),
            ) => Ok(()),
            Err(error) => Err(Error::Usage(format!("MCP initialisation failed: {error}"))),
        };
        input.abort();
        output.await.ok();
        writer.await.ok();
        outcome
    })
}

//! `ai-rulez mcp`: the same `.ai-rulez/` tree served to coding agents over MCP (stdio,
//! newline-delimited JSON-RPC) with rmcp, the official Rust SDK. This module holds the server
//! state (confinement, the toolsets this session serves, session memory, cached projects) and the
//! protocol glue; every tool is one declaration in [`toolsets`], read through [`registry`].

mod args;
mod bounds;
mod cache;
pub(crate) mod framing;
mod memory_args;
mod page;
pub(crate) mod registry;
mod resources;
mod schema;
mod skill_args;
mod toolsets;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, GetSkillRequestParams, GetSkillResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, ServerInitializeError};
use rmcp::{ErrorData, ServiceExt as _};

use self::args::ToolsetsServed;
use self::registry::{ToolError, ToolSpec, Toolset};
use crate::error::{Error, Result};
use crate::project::{self, Project};
use crate::retrieval::{Catalog, Session};

/// How a server is started (`ai-rulez mcp` flags, resolved).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// `--root`: where `working_directory` may point, and where every served project must lie.
    /// `None`: `working_directory` must stay inside the start directory, and the project around
    /// it is served wherever its root is.
    pub root: Option<PathBuf>,
    /// Toolsets served from the start (`core` is always served besides).
    pub toolsets: Vec<Toolset>,
    /// Serve no tool that writes, and refuse toolsets that only write.
    pub read_only: bool,
}

/// Every declared tool; served ones are chosen per call from the session's toolsets.
#[must_use]
pub fn declared_tools() -> Vec<ToolSpec> {
    toolsets::all()
}

struct State {
    session: Session,
    projects: cache::Projects,
}

/// Per project root: the index of the instruction files the repository already has, for the
/// `context` toolset, which needs neither the project's items nor their catalog.
type InstructionIndexes =
    std::collections::HashMap<PathBuf, Arc<crate::instruction_files::CachedIndex>>;

/// Loads the project at `root` into the server's cache and builds, for the `toolsets` served,
/// the parts a first call needs: the relevance index (`read`) and the skill shelf with its
/// screening (`skills`). A call that arrives meanwhile waits on the state lock for the load,
/// or on the part it needs, and never does the work twice. A load that fails is left for the
/// first call, which reports it. The catalog stays fresh because the project's file watcher
/// runs before the tree is read. For the `context` toolset only the screening's detector table
/// is compiled ([`crate::lint::screen::compile_detectors`]): the instruction-file index is
/// reused for ten seconds without a watcher, so one built at start-up could miss a file added
/// before the first call. Each lazy part waits until no tool call is in
/// progress (`calls_in_flight`, at most [`PRELOAD_PATIENCE`]): on two cores, building the
/// relevance index beside a first `find_skill` that screens the skills slowed that call by
/// about 7 ms of its 100.
fn preload(
    state: &Mutex<State>,
    calls_in_flight: &AtomicUsize,
    root: &Path,
    toolsets: &BTreeSet<Toolset>,
) {
    // The state lock is held for the load only: the lazy parts build without it.
    let catalog = match state.lock() {
        Ok(mut state) => state.projects.catalog(root).ok(),
        Err(_) => None,
    };
    // The parts below may not be needed soon; a call that arrives meanwhile runs first.
    crate::local_state::lower_this_threads_priority();
    let Some(catalog) = catalog else {
        return;
    };
    if toolsets.contains(&Toolset::Read) {
        wait_until_no_calls(calls_in_flight, PRELOAD_PATIENCE);
        catalog.relevance();
    }
    if toolsets.contains(&Toolset::Skills) {
        wait_until_no_calls(calls_in_flight, PRELOAD_PATIENCE);
        let _ = catalog.skill_shelf();
    }
    if toolsets.contains(&Toolset::Context) {
        wait_until_no_calls(calls_in_flight, PRELOAD_PATIENCE);
        crate::lint::screen::compile_detectors();
    }
}

/// How long the preload waits for tool calls in progress before it builds a part anyway.
const PRELOAD_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits until `calls_in_flight` is zero, checking every millisecond, for at most `patience`.
/// Returns whether it reached zero (false when `patience` ran out first).
fn wait_until_no_calls(calls_in_flight: &AtomicUsize, patience: std::time::Duration) -> bool {
    let began = std::time::Instant::now();
    while calls_in_flight.load(Ordering::Acquire) > 0 {
        if began.elapsed() >= patience {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    true
}

/// Counts one tool call in progress in the server's `calls_in_flight` for as long as it lives,
/// so the count drops even when the call unwinds.
struct CallInFlight<'a>(&'a AtomicUsize);

impl<'a> CallInFlight<'a> {
    fn start(calls_in_flight: &'a AtomicUsize) -> Self {
        calls_in_flight.fetch_add(1, Ordering::AcqRel);
        Self(calls_in_flight)
    }
}

impl Drop for CallInFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a writing tool changed in the project (see [`Server::write_catalog`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Changed {
    /// Only these new rule files were created, with exactly these bytes: the cached catalog
    /// takes them without reloading the project.
    Created(Vec<cache::OwnFile>),
    /// Nothing was written.
    Nothing,
}

/// The toolsets a session serves, and how many times that set changed.
struct Served {
    toolsets: BTreeSet<Toolset>,
    changes: u64,
}

/// The MCP server.
pub(crate) struct Server {
    /// Canonical directory every `working_directory` must resolve inside.
    root: PathBuf,
    /// Canonical directory the server started in: the default project, and what a relative
    /// `working_directory` is resolved against.
    start: PathBuf,
    /// With `--root`: the canonical directory every served project root must lie inside.
    project_bound: Option<PathBuf>,
    read_only: bool,
    specs: Vec<ToolSpec>,
    /// The `tools/list` entry of each spec, in the same order.
    listing: Vec<Tool>,
    served: Mutex<Served>,
    /// Shared with the thread that loads the start directory's project at start-up
    /// ([`Server::start_preload`]).
    state: Arc<Mutex<State>>,
    /// Kept apart from `state`, so a `find_context` call never waits for a project load.
    instruction_files: Mutex<InstructionIndexes>,
    /// Tool calls running now; the preload waits for none before building a lazy part.
    calls_in_flight: Arc<AtomicUsize>,
}

impl Server {
    /// A server started in `start` with `options`.
    ///
    /// Errors: a directory does not exist, or `start` lies outside `--root`.
    pub(crate) fn new(start: &Path, options: &Options) -> Result<Self> {
        let start = fs_err::canonicalize(start)?;
        let root = match &options.root {
            Some(root) => fs_err::canonicalize(root)?,
            None => start.clone(),
        };
        if !start.starts_with(&root) {
            return Err(Error::Usage(format!(
                "the server starts in {} but --root {} does not contain it; pick a --root that does",
                start.display(),
                root.display()
            )));
        }
        let specs = toolsets::all();
        let listing = specs.iter().map(ToolSpec::to_tool).collect();
        Ok(Self {
            project_bound: options.root.as_ref().map(|_| root.clone()),
            root,
            start,
            read_only: options.read_only,
            specs,
            listing,
            served: Mutex::new(Served {
                toolsets: options.toolsets.iter().copied().collect(),
                changes: 0,
            }),
            state: Arc::new(Mutex::new(State {
                session: Session::default(),
                projects: cache::Projects::new(),
            })),
            instruction_files: Mutex::new(InstructionIndexes::new()),
            calls_in_flight: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Starts loading the project of the start directory on another thread, so that the
    /// client's handshake and the time before its first call overlap the load; see
    /// [`preload`]. Nothing happens when the start directory is in no project this server may
    /// serve.
    pub(crate) fn start_preload(&self) {
        let Ok(root) = self.project_root(&self.start) else {
            return;
        };
        let toolsets = match self.served() {
            Ok(served) => served.toolsets.clone(),
            Err(_) => return,
        };
        let state = Arc::clone(&self.state);
        let calls_in_flight = Arc::clone(&self.calls_in_flight);
        std::thread::Builder::new()
            .name("preload".to_owned())
            .spawn(move || preload(&state, &calls_in_flight, &root, &toolsets))
            .ok();
    }

    /// Resolves where a call looks for its project: `working_directory` (relative to the start
    /// directory), else the folder of an absolute `path`, else the start directory. It must lie
    /// inside the root after symlinks are resolved.
    fn start_for(
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

    /// The root of the project around `start`, refused when it lies outside `--root` (B52: a
    /// server started inside a package must not write to the project above it).
    fn project_root(&self, start: &Path) -> Result<PathBuf> {
        let (root, _, _) = project::discover(start)?;
        if let Some(bound) = &self.project_bound
            && !root.starts_with(bound)
        {
            return Err(Error::Usage(format!(
                "the project at {} lies outside --root {}; this server serves only projects inside --root, so start it with a --root that contains the project",
                root.display(),
                bound.display()
            )));
        }
        Ok(root)
    }

    fn lock_state(&self) -> std::result::Result<MutexGuard<'_, State>, ToolError> {
        self.state
            .lock()
            .map_err(|_| ToolError("server state is poisoned; restart the server".to_owned()))
    }

    /// Runs a tool of the `context` toolset on the instruction files of the project found from
    /// `working_directory` (or from the folder of an absolute `path`), without loading the
    /// project's items: `run` gets the index, the project's root folder and its root directory.
    /// The index is built on first use and rebuilt when ten seconds old or, with `along` (the
    /// file or folder the call asks about, as typed), when something along it changed (see
    /// [`crate::instruction_files::CachedIndex::get`]).
    pub(crate) fn read_instruction_files<T>(
        &self,
        working_directory: Option<&str>,
        path: Option<&str>,
        along: Option<&str>,
        run: impl FnOnce(
            &crate::instruction_files::InstructionIndex,
            &crate::confined_fs::ProjectDir,
            &Path,
        ) -> std::result::Result<T, ToolError>,
    ) -> std::result::Result<T, ToolError> {
        let start = self.start_for(working_directory, path)?;
        let root = self.project_root(&start)?;
        let (_, config_relative, _) = project::discover(&root)?;
        let config_dir = project::config_dir_of(config_relative);
        let dir = crate::confined_fs::ProjectDir::open(&root)?;
        let cached = {
            let mut indexes = self.instruction_files.lock().map_err(|_| {
                ToolError("server state is poisoned; restart the server".to_owned())
            })?;
            Arc::clone(indexes.entry(root.clone()).or_default())
        };
        // The state lock is not held while the tree is walked: other tools go on meanwhile.
        let along = along.and_then(|typed| crate::retrieval::project_relative(&root, typed));
        let index = cached.get(&dir, config_dir, along.as_deref());
        run(&index, &dir, &root)
    }

    /// Runs a reading tool on the fresh project found from `working_directory` (or from the
    /// folder of an absolute `path`), with the session.
    pub(crate) fn read<T>(
        &self,
        working_directory: Option<&str>,
        path: Option<&str>,
        run: impl FnOnce(&Catalog, &mut Session) -> std::result::Result<T, ToolError>,
    ) -> std::result::Result<T, ToolError> {
        let start = self.start_for(working_directory, path)?;
        let root = self.project_root(&start)?;
        let mut state = self.lock_state()?;
        let catalog = state.projects.catalog(&root)?;
        run(&catalog, &mut state.session)
    }

    /// Runs a writing tool on the project found from `working_directory`; writes are serialised
    /// by the state lock, and the project is marked stale afterwards so the next call sees the
    /// change.
    pub(crate) fn write<T>(
        &self,
        working_directory: Option<&str>,
        run: impl FnOnce(&Project) -> Result<T>,
    ) -> std::result::Result<T, ToolError> {
        let start = self.start_for(working_directory, None)?;
        let root = self.project_root(&start)?;
        let mut state = self.lock_state()?;
        let catalog = state.projects.catalog(&root)?;
        let result = run(&catalog.project);
        state.projects.mark_stale(&root);
        Ok(result?)
    }

    /// Like [`Server::write`], for a writing tool that also needs the catalog (the search index
    /// over the active rules) of the project. The project's writer lock is taken first and the
    /// catalog brought up to date after it, so the tool checks against every file another
    /// process saved before it (two servers saving the same rule at once save it once); `run`
    /// gets the held lock and must not take it again. The tool says what it changed: a call
    /// that wrote nothing (a duplicate reported as already known) keeps the cached catalog, new
    /// rule files it names are added to it, and anything else reloads the project on the next
    /// call, as does an error, since part of a batch may have been written.
    pub(crate) fn write_catalog<T>(
        &self,
        working_directory: Option<&str>,
        run: impl FnOnce(&Catalog, &crate::confined_fs::ProjectLock) -> Result<(T, Changed)>,
    ) -> std::result::Result<T, ToolError> {
        let start = self.start_for(working_directory, None)?;
        let root = self.project_root(&start)?;
        let mut state = self.lock_state()?;
        let held = crate::confined_fs::ProjectDir::open(&root)?.lock()?;
        let catalog = state.projects.catalog(&root)?;
        let result = run(&catalog, &held);
        // The cache must hold the only reference again to update the catalog in place.
        drop(catalog);
        let (value, changed) = match result {
            Ok(done) => done,
            Err(error) => {
                state.projects.mark_stale(&root);
                return Err(error.into());
            }
        };
        match changed {
            Changed::Nothing => {}
            Changed::Created(files) => state.projects.created(&root, files),
        }
        Ok(value)
    }

    /// Runs a writing tool whose files the cached catalog does not hold (team memories,
    /// learnings, refresh requests, the activity log): the library function `run` calls takes
    /// the project's writer lock itself, and the cached catalog stays valid (the file watcher
    /// ignores those folders too).
    pub(crate) fn write_beside_catalog<T>(
        &self,
        working_directory: Option<&str>,
        run: impl FnOnce(&Catalog) -> Result<T>,
    ) -> std::result::Result<T, ToolError> {
        let start = self.start_for(working_directory, None)?;
        let root = self.project_root(&start)?;
        let mut state = self.lock_state()?;
        let catalog = state.projects.catalog(&root)?;
        Ok(run(&catalog)?)
    }

    /// Whether the server was started with `--read-only` (no project file is written).
    pub(crate) fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The folder `working_directory` names (checked as for any call); no project needed.
    pub(crate) fn folder(
        &self,
        working_directory: Option<&str>,
    ) -> std::result::Result<PathBuf, ToolError> {
        Ok(self.start_for(working_directory, None)?)
    }

    /// The folder `working_directory` names, for a library run that finds the project itself;
    /// the project found from there must be one this server may serve.
    pub(crate) fn project_folder(
        &self,
        working_directory: Option<&str>,
    ) -> std::result::Result<PathBuf, ToolError> {
        let start = self.start_for(working_directory, None)?;
        self.project_root(&start)?;
        Ok(start)
    }

    /// `path` as a reply shows it: relative to the start directory (as `working_directory` is
    /// given), else to the root.
    pub(crate) fn shown_path(&self, path: &Path) -> String {
        let shown = path
            .strip_prefix(&self.start)
            .or_else(|_| path.strip_prefix(&self.root))
            .unwrap_or(path);
        camino::Utf8Path::from_path(shown)
            .map_or_else(|| shown.display().to_string(), ToString::to_string)
    }

    fn is_served(&self, spec: &ToolSpec, toolsets: &BTreeSet<Toolset>) -> bool {
        (spec.toolset == Toolset::Core || toolsets.contains(&spec.toolset))
            && (spec.hints.read_only || !self.read_only)
    }

    fn served(&self) -> std::result::Result<MutexGuard<'_, Served>, ToolError> {
        self.served
            .lock()
            .map_err(|_| ToolError("server state is poisoned; restart the server".to_owned()))
    }

    /// Adds `toolset` to this session. Returns every toolset now served and the tools added.
    ///
    /// Errors: under `--read-only`, a toolset none of whose tools only reads.
    pub(crate) fn enable(
        &self,
        toolset: Toolset,
    ) -> std::result::Result<ToolsetsServed, ToolError> {
        let mut served = self.served()?;
        let mut added = Vec::new();
        if !served.toolsets.contains(&toolset) {
            let mut with = served.toolsets.clone();
            with.insert(toolset);
            added = self
                .specs
                .iter()
                .filter(|spec| spec.toolset == toolset && self.is_served(spec, &with))
                .map(|spec| spec.name.to_string())
                .collect();
            if added.is_empty() && self.read_only {
                return Err(ToolError(format!(
                    "the `{}` toolset only writes, and this server runs with --read-only",
                    toolset.name()
                )));
            }
            served.toolsets = with;
            served.changes += 1;
        }
        Ok(ToolsetsServed {
            toolsets: served
                .toolsets
                .iter()
                .map(|toolset| toolset.name().to_owned())
                .collect(),
            added,
        })
    }

    /// Why a declared tool is not served in this session, or `None` when it is.
    fn not_served(&self, spec: &ToolSpec) -> Option<String> {
        let served = match self.served() {
            Ok(served) => served,
            Err(error) => return Some(error.0),
        };
        if self.is_served(spec, &served.toolsets) {
            return None;
        }
        Some(if self.read_only && !spec.hints.read_only {
            format!(
                "`{}` writes, and this server runs with --read-only: it serves only reading tools",
                spec.name
            )
        } else {
            format!(
                "`{}` belongs to the `{}` toolset, which this session does not serve; call enable_toolset with {{\"toolset\": \"{}\"}} first",
                spec.name,
                spec.toolset.name(),
                spec.toolset.name()
            )
        })
    }

    fn changes(&self) -> u64 {
        self.served().map_or(0, |served| served.changes)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_skills()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "ai-rulez serves this repository's rules and skills. Call get_rules with the paths you will edit and a one-sentence task before editing; use search_rules for a topic and get_context for everything that applies to a path; enable_toolset with skills adds find_skill and load_skill for the project's skills. enable_toolset adds the tools to write rules and skills (author) or to configure and generate (admin).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let served = self
            .served()
            .map_err(|error| ErrorData::internal_error(error.0, None))?;
        let tools = self
            .specs
            .iter()
            .zip(&self.listing)
            .filter(|(spec, _)| self.is_served(spec, &served.toolsets))
            .map(|(_, tool)| tool.clone())
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let position = self.specs.iter().position(|spec| spec.name == name)?;
        self.not_served(&self.specs[position])
            .is_none()
            .then(|| self.listing[position].clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        // An unknown name is a protocol error (-32602), as in the MCP specification's example;
        // a known tool this session does not serve gets an error result saying how to get it.
        let Some(spec) = self.specs.iter().find(|spec| spec.name == request.name) else {
            return Err(ErrorData::invalid_params(
                readable_error(&format!(
                    "Unknown tool `{}`; call tools/list for the available tools.",
                    request.name
                )),
                None,
            ));
        };
        if let Some(message) = self.not_served(spec) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
        }
        let changes = self.changes();
        // The call runs on this worker thread, handed off by the runtime (`block_in_place`), so
        // `ping`, `tools/list` and `notifications/cancelled` are read and answered meanwhile.
        // A cancelled call stops at its next writer lock, before writing anything; its reply
        // is not sent (`framing` drops it).
        let cancelled = context.ct.clone();
        let arguments = request.arguments.unwrap_or_default();
        let in_flight = CallInFlight::start(&self.calls_in_flight);
        let outcome = tokio::task::block_in_place(|| {
            crate::confined_fs::while_cancellable(
                move || cancelled.is_cancelled(),
                || spec.call(self, arguments),
            )
        });
        drop(in_flight);
        let result = match outcome {
            Ok(result) => result,
            Err(error) => CallToolResult::error(vec![ContentBlock::text(readable_error(&error.0))]),
        };
        if self.changes() != changes {
            // Sent before the reply, so the client knows of the new tools when the call returns.
            context.peer.notify_tool_list_changed().await.ok();
        }
        Ok(result.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CustomResult, ErrorData> {
        // A `tools/call` that does not parse (no `params`, no `name`) arrives here as an unknown
        // method; it is a known method with invalid parameters.
        if request.method == "tools/call" {
            return Err(ErrorData::invalid_params(
                "tools/call needs `params` with the tool's `name` (and its `arguments`)",
                None,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: `{}` is not a method this server offers (see the capabilities in its initialize reply)",
                // The name is the client's text: echo a bounded part of it.
                request.method.chars().take(100).collect::<String>()
            ),
            None,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        // A project that does not load still lists the fixed resources.
        let listed = tokio::task::block_in_place(|| {
            self.read(None, None, |catalog, _| {
                Ok(resources::list(Some(catalog.skill_shelf())))
            })
        });
        Ok(listed.unwrap_or_else(|_| resources::list(None)))
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListSkillsResult, ErrorData> {
        // The whole catalog in one page: an entry is small and a project has hundreds at most.
        let skills = tokio::task::block_in_place(|| {
            self.read(None, None, |catalog, _| {
                Ok(catalog
                    .skill_shelf()
                    .skills
                    .iter()
                    .map(resources::skill_entry)
                    .collect())
            })
        })
        .map_err(|error| ErrorData::internal_error(error.0, None))?;
        Ok(ListSkillsResult::with_all_items(skills))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<GetSkillResult, ErrorData> {
        let skill = tokio::task::block_in_place(|| {
            self.read(None, None, |catalog, _| {
                resources::get_skill(catalog.skill_shelf(), &request.uri).map_err(ToolError)
            })
        })
        .map_err(|error| ErrorData::invalid_params(error.0, None))?;
        Ok(GetSkillResult::new(skill))
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
        if request.uri.starts_with("context://") {
            let contents = tokio::task::block_in_place(|| {
                self.read_instruction_files(None, None, None, |index, dir, _| {
                    resources::read_context(index, dir, &request.uri).map_err(ToolError)
                })
            })
            .map_err(|error| ErrorData::invalid_params(error.0, None))?;
            return Ok(rmcp::model::ReadResourceResult::new(contents).into());
        }
        let contents = tokio::task::block_in_place(|| {
            self.read(None, None, |catalog, _| {
                if request
                    .uri
                    .starts_with(crate::retrieval::skills::SKILL_SCHEME)
                {
                    resources::read_skill(catalog.skill_shelf(), &request.uri).map_err(ToolError)
                } else {
                    resources::read(&catalog.project, catalog.skill_shelf(), &request.uri)
                        .map_err(ToolError)
                }
            })
        })
        .map_err(|error| ErrorData::invalid_params(error.0, None))?;
        Ok(rmcp::model::ReadResourceResult::new(contents).into())
    }
}

/// Serves MCP over stdin/stdout until stdin closes, for the project around `start`, with
/// `options`.
///
/// Errors: the runtime cannot start, a directory does not exist, or stdio fails.
pub(crate) fn serve(start: &Path, options: &Options) -> Result<()> {
    let server = Server::new(start, options)?;
    server.start_preload();
    // Two workers: a tool call blocks the one it runs on (see `call_tool`), and the other keeps
    // reading and answering the client.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
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

/// Most characters of a tool's error message sent back (20,000): far above any message of the
/// tools' own (a refusal with its diffs), while an argument the client sent, which many
/// messages quote, can be a megabyte.
const MAX_ERROR_CHARS: usize = 20_000;

/// A tool's error message as sent to the client: every character a reader would not see
/// escaped, line by line (a quoted argument may hold U+202E or a zero-width space), and cut to
/// [`MAX_ERROR_CHARS`] with the number of characters left out.
fn readable_error(message: &str) -> String {
    let escaped = message
        .split('\n')
        .map(crate::lint::screen::escape_unreadable)
        .collect::<Vec<_>>()
        .join("\n");
    let total = escaped.chars().count();
    if total <= MAX_ERROR_CHARS {
        return escaped;
    }
    let kept: String = escaped.chars().take(MAX_ERROR_CHARS).collect();
    format!("{kept}... ({} more characters)", total - MAX_ERROR_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preload_waits_for_calls_in_progress_and_only_as_long_as_its_patience() {
        let calls_in_flight = AtomicUsize::new(0);
        assert!(wait_until_no_calls(
            &calls_in_flight,
            std::time::Duration::ZERO
        ));
        let call = CallInFlight::start(&calls_in_flight);
        assert_eq!(calls_in_flight.load(Ordering::Acquire), 1);
        assert!(!wait_until_no_calls(
            &calls_in_flight,
            std::time::Duration::from_millis(5)
        ));
        std::thread::scope(|scope| {
            scope.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                drop(call);
            });
            assert!(wait_until_no_calls(
                &calls_in_flight,
                std::time::Duration::from_mins(1)
            ));
        });
        assert_eq!(calls_in_flight.load(Ordering::Acquire), 0);
    }
}

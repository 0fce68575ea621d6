//! The `admin` toolset: the project's settings (config, profiles), creating a project, and the
//! project-wide runs a person would start from the CLI (generate, validate, lock status).

use super::super::args::{
    GenerateArgs, InitArgs, NameArgs, Operation, ProfileArgs, ProjectArgs, UpdateConfigArgs,
    ValidateArgs,
};
use super::super::page::{GeneratePage, ValidationPage};
use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, ToolSpec, Toolset};
use crate::authoring;
use crate::settings::{self, ConfigChanges, ConfigView, NameList};
use crate::summary::{self, LockReport, VersionInfo};
use crate::write::Mode;

/// Why the settings tools have no CLI command.
const EDIT_CONFIG: Pairing = Pairing::NoCommand("people edit config.toml");

/// The toolset's tools, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        read_config(),
        update_config(),
        list_profiles(),
        add_profile(),
        remove_profile(),
        set_default_profile(),
        init_project(),
        generate_outputs(),
        validate_config(),
        lock_status(),
        get_version(),
    ]
}

fn read_config() -> ToolSpec {
    ToolSpec {
        name: "read_config".into(),
        title: "Read the config".into(),
        description: "Returns the project settings from config.toml.".into(),
        hints: Hints::READ,
        toolset: Toolset::Admin,
        pairing: Pairing::NoCommand("people read config.toml"),
        handler: Handler::new(|server, args: ProjectArgs| -> Reply<ConfigView> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(settings::view(&catalog.project)?))
            })
        }),
    }
}

fn update_config() -> ToolSpec {
    ToolSpec {
        name: "update_config".into(),
        title: "Update the config".into(),
        description: "Changes the given config.toml keys; comments and key order survive, and the result must still load.".into(),
        hints: Hints::REPLACE,
        toolset: Toolset::Admin,
        pairing: EDIT_CONFIG,
        handler: Handler::new(|server, args: UpdateConfigArgs| -> Reply<Operation> {
            let wanted = ConfigChanges {
                name: args.name,
                description: args.description,
                presets: args.presets,
                gitignore: args.gitignore,
                rules_mode: args.rules_mode,
                agents_md: args.agents_md,
            };
            server.write(args.working_directory.as_deref(), |project| {
                let changed = settings::update(project, &wanted)?;
                let message = format!("Updated {}.", changed.join(", "));
                let (name, path) = (&project.config.name, &project.config_relative);
                let done = Operation::done("update_config", name, path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}

fn list_profiles() -> ToolSpec {
    ToolSpec {
        name: "list_profiles".into(),
        title: "List profiles".into(),
        description: "Lists profiles, their domains and the default.".into(),
        hints: Hints::READ,
        toolset: Toolset::Admin,
        pairing: Pairing::NoCommand("people read config.toml"),
        handler: Handler::new(|server, args: ProjectArgs| -> Reply<NameList> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(settings::profiles(&catalog.project)))
            })
        }),
    }
}

fn add_profile() -> ToolSpec {
    ToolSpec {
        name: "add_profile".into(),
        title: "Add a profile".into(),
        description: "Sets [profiles] <name> = [domains] in config.toml (comments survive).".into(),
        hints: Hints::REPLACE,
        toolset: Toolset::Admin,
        pairing: EDIT_CONFIG,
        handler: Handler::new(|server, args: ProfileArgs| -> Reply<Operation> {
            server.write(args.working_directory.as_deref(), |project| {
                authoring::set_profile(project, &args.name, &args.domains)?;
                let domains = args.domains.join(", ");
                let message = format!("Profile `{}` selects {domains}.", args.name);
                let path = &project.config_relative;
                let done = Operation::done("add_profile", &args.name, path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}

fn remove_profile() -> ToolSpec {
    ToolSpec {
        name: "remove_profile".into(),
        title: "Remove a profile".into(),
        description: "Removes a profile from config.toml.".into(),
        hints: Hints::REMOVE,
        toolset: Toolset::Admin,
        pairing: EDIT_CONFIG,
        handler: Handler::new(|server, args: NameArgs| -> Reply<Operation> {
            server.write(args.working_directory.as_deref(), |project| {
                authoring::remove_profile(project, &args.name)?;
                let message = format!("Removed profile `{}`.", args.name);
                let path = &project.config_relative;
                let done = Operation::done("remove_profile", &args.name, path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}

fn set_default_profile() -> ToolSpec {
    ToolSpec {
        name: "set_default_profile".into(),
        title: "Set the default profile".into(),
        description: "Sets `default` in config.toml.".into(),
        hints: Hints::REPLACE,
        toolset: Toolset::Admin,
        pairing: EDIT_CONFIG,
        handler: Handler::new(|server, args: NameArgs| -> Reply<Operation> {
            server.write(args.working_directory.as_deref(), |project| {
                authoring::set_default_profile(project, &args.name)?;
                let message = format!("Default profile is now `{}`.", args.name);
                let path = &project.config_relative;
                let done = Operation::done("set_default_profile", &args.name, path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}

fn init_project() -> ToolSpec {
    ToolSpec {
        name: "init_project".into(),
        title: "Create a project".into(),
        description: "Creates .ai-rulez/ with a working config and one example of each item kind; never overwrites.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Admin,
        pairing: Pairing::Command("init"),
        handler: Handler::new(|server, args: InitArgs| -> Reply<Operation> {
            let folder = server.folder(args.working_directory.as_deref())?;
            let (name, presets) = (args.name.as_deref(), args.presets.as_deref());
            let nesting = if args.nested.unwrap_or(false) {
                crate::init::Nesting::Allow
            } else {
                crate::init::Nesting::Refuse
            };
            let created = settings::init_screened(&folder, name, presets, nesting)?;
            let mut message =
                "Created .ai-rulez/ with examples; run generate_outputs next.".to_owned();
            for sentence in crate::init::existing_setups(&folder)? {
                message.push(' ');
                message.push_str(&sentence);
                message.push('.');
            }
            let path = server.shown_path(&created);
            let done = Operation::done("init_project", name.unwrap_or(""), &path, message);
            Ok(Answer::data(done))
        }),
    }
}

fn generate_outputs() -> ToolSpec {
    ToolSpec {
        name: "generate_outputs".into(),
        title: "Generate assistant files".into(),
        description: "Runs ai-rulez generate (or --dry-run, or --check) for the project and returns each path's status.".into(),
        hints: Hints::REPLACE,
        toolset: Toolset::Admin,
        pairing: Pairing::Command("generate"),
        handler: Handler::new(|server, args: GenerateArgs| -> Reply<GeneratePage> {
            let start = server.project_folder(args.working_directory.as_deref())?;
            let mode = if args.check.unwrap_or(false) {
                Mode::Check
            } else if args.dry_run.unwrap_or(false) {
                Mode::DryRun
            } else {
                Mode::Write
            };
            let report = summary::generate(&start, args.profile.as_deref(), mode)?;
            Ok(Answer::data(GeneratePage::of(report, args.offset, args.limit)))
        }),
    }
}

fn validate_config() -> ToolSpec {
    ToolSpec {
        name: "validate_config".into(),
        title: "Validate the project".into(),
        description: "Runs the same checks as `ai-rulez validate` and lists error and warning findings (`file:line: CODE message`).".into(),
        hints: Hints::READ,
        toolset: Toolset::Admin,
        pairing: Pairing::Command("validate"),
        handler: Handler::new(|server, args: ValidateArgs| -> Reply<ValidationPage> {
            let start = server.project_folder(args.working_directory.as_deref())?;
            let report = summary::validation(&start)?;
            Ok(Answer::data(ValidationPage::of(report, args.offset, args.limit)))
        }),
    }
}

fn lock_status() -> ToolSpec {
    ToolSpec {
        name: "lock_status".into(),
        title: "Lock status".into(),
        description: "Compares ai-rulez.lock with the sources and generated files (like `ai-rulez lock --check`).".into(),
        hints: Hints::READ,
        toolset: Toolset::Admin,
        pairing: Pairing::Command("lock --check"),
        handler: Handler::new(|server, args: ProjectArgs| -> Reply<LockReport> {
            let start = server.project_folder(args.working_directory.as_deref())?;
            Ok(Answer::data(summary::lock_status(&start)?))
        }),
    }
}

fn get_version() -> ToolSpec {
    ToolSpec {
        name: "get_version".into(),
        title: "Version".into(),
        description: "Returns the ai-rulez version.".into(),
        hints: Hints::READ,
        toolset: Toolset::Admin,
        pairing: Pairing::Command("--version"),
        handler: Handler::new(|_, _: ProjectArgs| -> Reply<VersionInfo> {
            Ok(Answer::data(summary::version()))
        }),
    }
}

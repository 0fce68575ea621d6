//! The `core` toolset, served in every session: enabling a further toolset at run time, so a
//! client can start small and grow its tool list when the work needs it.

use super::super::args::{EnableToolsetArgs, ToolsetsServed};
use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, TOOLSETS, ToolSpec, Toolset};

/// The toolset's tools.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![enable_toolset()]
}

fn enable_toolset() -> ToolSpec {
    // The choices come from the registry, so a new toolset is described here by itself.
    let choices: Vec<String> = TOOLSETS
        .iter()
        .filter(|(toolset, _, _)| *toolset != Toolset::Core)
        .map(|(_, name, summary)| format!("{name} ({summary})"))
        .collect();
    ToolSpec {
        name: "enable_toolset".into(),
        title: "Enable a toolset".into(),
        description: format!(
            "Adds a toolset's tools to this session; the client is told the tool list changed. Toolsets: {}.",
            choices.join("; ")
        )
        .into(),
        // It changes which tools this session lists, nothing in the project.
        hints: Hints::READ,
        toolset: Toolset::Core,
        pairing: Pairing::NoCommand("people choose toolsets with `mcp --toolsets`"),
        handler: Handler::new(|server, args: EnableToolsetArgs| -> Reply<ToolsetsServed> {
            let toolset = Toolset::from_name(&args.toolset)?;
            Ok(Answer::data(server.enable(toolset)?))
        }),
    }
}

//! `ui/src/bindings.ts`: the TypeScript of the desktop IPC, generated from the Rust types
//! of [`crate::commands`] (with ts-rs), so the UI's types have one source. It holds every
//! type the commands take or answer, the error shape, a command → types map, each
//! event's payload and the command list; `tests/desktop_bindings.rs` fails while the committed file differs.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::collections::HashSet;

use ts_rs::{Config, TypeVisitor, TS};

use crate::commands::Command;

/// How to rewrite the committed file.
pub const REGENERATE: &str = "UPDATE_BINDINGS=1 cargo test -p memory-bank-app --test desktop_bindings";

/// One command's TypeScript: its name and the names of its argument and answer types.
pub struct Signature {
    name: &'static str,
    args: fn(&Config) -> String,
    answer: fn(&Config) -> String,
    visit: fn(&mut Declarations),
}

impl Signature {
    pub(crate) fn of<C: Command + 'static>() -> Self
    where
        C::Args: TS + 'static,
        C::Answer: TS + 'static,
    {
        Signature {
            name: C::NAME,
            args: <C::Args as TS>::name,
            answer: <C::Answer as TS>::name,
            visit: |declarations| {
                declarations.visit::<C::Args>();
                declarations.visit::<C::Answer>();
            },
        }
    }
}

/// One event's TypeScript: its name and the name of its payload type.
pub struct EventSignature {
    name: &'static str,
    payload: fn(&Config) -> String,
    visit: fn(&mut Declarations),
}

impl EventSignature {
    pub(crate) fn of<Payload: TS + 'static>(name: &'static str) -> Self {
        EventSignature { name, payload: <Payload as TS>::name, visit: |declarations| declarations.visit::<Payload>() }
    }
}

/// The declarations of every named type reached, by TypeScript name.
struct Declarations<'a> {
    config: &'a Config,
    seen: HashSet<TypeId>,
    by_name: BTreeMap<String, (TypeId, String)>,
    clashes: Vec<String>,
}

impl TypeVisitor for Declarations<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        // Only declared types have a file of their own; `Vec`, `Option` and primitives do not.
        if T::output_path().is_some() {
            let name = T::ident(self.config);
            let text = format!("{}export {}", T::docs().unwrap_or_default(), T::decl(self.config));
            if let Some((other, _)) = self.by_name.insert(name.clone(), (TypeId::of::<T>(), text)) {
                if other != TypeId::of::<T>() {
                    self.clashes.push(name);
                }
            }
        }
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}

/// The contents of `ui/src/bindings.ts` for the app whose window may call
/// `app_commands` (`src-tauri/app_commands.rs`). Fails when a command is granted but not
/// declared in [`crate::commands`] (or the other way round), or when two Rust types
/// would share one TypeScript name.
pub fn render(app_commands: &[&str]) -> Result<String, String> {
    let mut granted: Vec<&str> = app_commands.to_vec();
    let mut declared: Vec<&str> = crate::commands::NAMES.to_vec();
    granted.sort_unstable();
    declared.sort_unstable();
    if granted != declared {
        let missing: Vec<_> = granted.iter().filter(|c| !declared.contains(c)).collect();
        let extra: Vec<_> = declared.iter().filter(|c| !granted.contains(c)).collect();
        return Err(format!(
            "APP_COMMANDS and memory_bank_desktop::commands differ: granted without types {missing:?}, typed but not granted {extra:?}"
        ));
    }
    // Rust's u64/i64 are well inside JavaScript's safe integers here (counts, ms since the epoch).
    let config = Config::new().with_large_int("number");
    let signatures = crate::commands::signatures();
    let events = crate::events::signatures();
    let mut declarations = Declarations { config: &config, seen: HashSet::new(), by_name: BTreeMap::new(), clashes: Vec::new() };
    declarations.visit::<crate::DesktopError>();
    for signature in &signatures {
        (signature.visit)(&mut declarations);
    }
    for event in &events {
        (event.visit)(&mut declarations);
    }
    if !declarations.clashes.is_empty() {
        return Err(format!("two Rust types are named {:?} in TypeScript; rename one with #[ts(rename)]", declarations.clashes));
    }

    let mut out = String::new();
    out.push_str("// Generated from the Rust types of the desktop IPC (crates/desktop/src/commands.rs) by\n");
    out.push_str(&format!("// `{REGENERATE}`. Do not edit.\n\n"));
    for (_, declaration) in declarations.by_name.values() {
        out.push_str(declaration);
        out.push_str("\n\n");
    }
    out.push_str("/** Each command's arguments and answer. */\nexport type CommandTypes = {\n");
    for signature in &signatures {
        out.push_str(&format!(
            "  {}: {{ args: {}; answer: {} }};\n",
            signature.name,
            (signature.args)(&config),
            (signature.answer)(&config)
        ));
    }
    out.push_str("};\n\n");
    out.push_str("/** Each event's payload (crates/desktop/src/events.rs). */\nexport type EventTypes = {\n");
    for event in &events {
        out.push_str(&format!("  \"{}\": {};\n", event.name, (event.payload)(&config)));
    }
    out.push_str("};\n\n");
    out.push_str("/** Every command the window may call (src-tauri/app_commands.rs). */\nexport const COMMANDS = [\n");
    for name in app_commands {
        out.push_str(&format!("  \"{name}\",\n"));
    }
    out.push_str("] as const;\n");
    Ok(out)
}

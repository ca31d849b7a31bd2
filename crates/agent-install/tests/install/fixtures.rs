//! Realistic config files per agent, and the exact bytes we expect after editing them
//! (goose's, in YAML, is in `goose.rs`). `{BIN}` stands for the binary path (see `bin()`).

use memory_bank_agent_install::Agent;

pub struct Fixture {
    /// The config file, relative to the home folder, with no env vars set.
    pub rel_path: &'static str,
    /// What a fresh install into an absent file writes.
    pub created: &'static str,
    /// A lived-in file: comments (where allowed), other servers, other top-level keys.
    pub realistic: &'static str,
    /// `realistic` after install.
    pub realistic_installed: &'static str,
    /// A file with other keys but no server map at all.
    pub no_container: &'static str,
    /// A file holding an outdated entry of ours.
    pub stale: &'static str,
    /// `stale` after install.
    pub stale_updated: &'static str,
    /// A syntax error, and its 1-based line.
    pub syntax_error: (&'static str, usize),
    /// The server map holding something that is not a map.
    pub wrong_shape: &'static str,
}

pub fn fixture(agent: Agent) -> Fixture {
    match agent {
        Agent::ClaudeCode => CLAUDE,
        Agent::Codex => CODEX,
        Agent::Opencode => OPENCODE,
        Agent::Gemini => GEMINI,
        Agent::ClaudeDesktop => CLAUDE_DESKTOP,
        Agent::Cursor => CURSOR,
        Agent::VsCode => VSCODE,
        Agent::Windsurf => WINDSURF,
        Agent::Zed => ZED,
        Agent::Goose => crate::goose::FIXTURE,
    }
}

const CLAUDE: Fixture = Fixture {
    rel_path: ".claude.json",
    created: r#"{
  "mcpServers": {
    "memory-bank": {
      "type": "stdio",
      "command": "{BIN}",
      "args": ["mcp"],
      "env": {}
    }
  }
}
"#,
    realistic: r#"{
  "numStartups": 184,
  "installMethod": "native",
  "autoUpdates": true,
  "projects": {
    "/home/ada/code/app": {
      "allowedTools": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {}
    },
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp"
    }
  },
  "userID": "5b1f0c"
}
"#,
    realistic_installed: r#"{
  "numStartups": 184,
  "installMethod": "native",
  "autoUpdates": true,
  "projects": {
    "/home/ada/code/app": {
      "allowedTools": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {}
    },
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp"
    },
    "memory-bank": {
      "type": "stdio",
      "command": "{BIN}",
      "args": ["mcp"],
      "env": {}
    }
  },
  "userID": "5b1f0c"
}
"#,
    no_container: "{\n  \"numStartups\": 3,\n  \"theme\": \"dark\"\n}\n",
    stale: r#"{
  "mcpServers": {
    "memory-bank": {
      "type": "stdio",
      "command": "/old/place/memory-bank",
      "args": ["serve"],
      "env": {"DEBUG": "1"}
    },
    "github": {"type": "stdio", "command": "npx", "args": []}
  },
  "theme": "dark"
}
"#,
    stale_updated: r#"{
  "mcpServers": {
    "memory-bank": {
      "type": "stdio",
      "command": "{BIN}",
      "args": ["mcp"],
      "env": {"DEBUG": "1"}
    },
    "github": {"type": "stdio", "command": "npx", "args": []}
  },
  "theme": "dark"
}
"#,
    // Claude Code reads plain JSON: a comment is an error, not something to keep.
    syntax_error: ("{\n  \"theme\": \"dark\",\n  // note\n  \"numStartups\": 1\n}\n", 3),
    wrong_shape: "{\n  \"mcpServers\": []\n}\n",
};

const CODEX: Fixture = Fixture {
    rel_path: ".codex/config.toml",
    created: "[mcp_servers.memory-bank]\ncommand = \"{BIN}\"\nargs = [\"mcp\"]\n",
    realistic: r#"# Codex CLI configuration
model = "gpt-5-codex"
approval_policy = "on-request" # ask before running commands

[profiles.fast]
model = "gpt-5-mini"

# MCP servers
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"] # stdio transport
startup_timeout_sec = 20

[mcp_servers.docs.env]
DOCS_ROOT = "/srv/docs"

[tui]
notifications = true
"#,
    realistic_installed: r#"# Codex CLI configuration
model = "gpt-5-codex"
approval_policy = "on-request" # ask before running commands

[profiles.fast]
model = "gpt-5-mini"

# MCP servers
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"] # stdio transport
startup_timeout_sec = 20

[mcp_servers.docs.env]
DOCS_ROOT = "/srv/docs"

[mcp_servers.memory-bank]
command = "{BIN}"
args = ["mcp"]

[tui]
notifications = true
"#,
    no_container: "# just a model\nmodel = \"o3\"\n",
    stale: r#"model = "o3"

# ours, from an old install
[mcp_servers.memory-bank]
command = "/old/place/memory-bank"   # moved since
args = ["serve"]
enabled = false

[mcp_servers.other]
command = "other"
"#,
    stale_updated: r#"model = "o3"

# ours, from an old install
[mcp_servers.memory-bank]
command = "{BIN}"   # moved since
args = ["mcp"]
enabled = false

[mcp_servers.other]
command = "other"
"#,
    syntax_error: ("model = \"o3\"\n[mcp_servers.docs\ncommand = \"x\"\n", 2),
    wrong_shape: "mcp_servers = \"none\"\n",
};

const OPENCODE: Fixture = Fixture {
    rel_path: ".config/opencode/opencode.json",
    created: r#"{
  "mcp": {
    "memory-bank": {
      "type": "local",
      "command": ["{BIN}", "mcp"],
      "enabled": true
    }
  }
}
"#,
    realistic: r#"{
  "$schema": "https://opencode.ai/config.json",
  // the default model
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    /* documentation search */
    "docs": {
      "type": "local",
      "command": ["docs-mcp", "--stdio"],
      "enabled": true,
    },
    "sentry": {
      "type": "remote",
      "url": "https://mcp.sentry.dev/mcp",
    },
  },
  "theme": "opencode", // trailing commas are fine in JSONC
}
"#,
    realistic_installed: r#"{
  "$schema": "https://opencode.ai/config.json",
  // the default model
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    /* documentation search */
    "docs": {
      "type": "local",
      "command": ["docs-mcp", "--stdio"],
      "enabled": true,
    },
    "sentry": {
      "type": "remote",
      "url": "https://mcp.sentry.dev/mcp",
    },
    "memory-bank": {
      "type": "local",
      "command": ["{BIN}", "mcp"],
      "enabled": true,
    },
  },
  "theme": "opencode", // trailing commas are fine in JSONC
}
"#,
    no_container: "{\n  // keep me\n  \"model\": \"anthropic/claude-sonnet-4-5\"\n}\n",
    stale: r#"{
  "mcp": {
    // ours
    "memory-bank": { "type": "local", "command": ["memory-bank", "mcp"], "enabled": false, "environment": {"X": "1"} }
  }
}
"#,
    stale_updated: r#"{
  "mcp": {
    // ours
    "memory-bank": { "type": "local", "command": ["{BIN}", "mcp"], "enabled": false, "environment": {"X": "1"} }
  }
}
"#,
    syntax_error: ("{\n  \"model\": \"x\"\n  \"theme\": \"y\"\n}\n", 2),
    wrong_shape: "{\n  \"mcp\": [\"memory-bank\"]\n}\n",
};

const GEMINI: Fixture = Fixture {
    rel_path: ".gemini/settings.json",
    created: r#"{
  "mcpServers": {
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"{
  // Gemini CLI user settings
  "general": {
    "vimMode": true
  },
  "mcpServers": {
    "docs": {
      "command": "docs-mcp",
      "args": ["--stdio"], // stdio
      "timeout": 30000,
      "trust": false
    }
  },
  "ui": { "theme": "GitHub" }
}
"#,
    realistic_installed: r#"{
  // Gemini CLI user settings
  "general": {
    "vimMode": true
  },
  "mcpServers": {
    "docs": {
      "command": "docs-mcp",
      "args": ["--stdio"], // stdio
      "timeout": 30000,
      "trust": false
    },
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  },
  "ui": { "theme": "GitHub" }
}
"#,
    no_container: "{\n  // appearance\n  \"ui\": { \"theme\": \"GitHub\" } // dark later\n}\n",
    stale: r#"{
  "mcpServers": {
    "memory-bank": { "command": "/old/memory-bank", "args": ["mcp"], "trust": true, "timeout": 30000 }
  }
}
"#,
    stale_updated: r#"{
  "mcpServers": {
    "memory-bank": { "command": "{BIN}", "args": ["mcp"], "trust": true, "timeout": 30000 }
  }
}
"#,
    // Gemini strips comments but then uses JSON.parse: trailing commas are errors.
    syntax_error: ("{\n  \"ui\": {},\n}\n", 2),
    wrong_shape: "{\n  \"mcpServers\": \"memory-bank\"\n}\n",
};

// The apps' files, at their Linux paths (the tests run in a Linux home; macOS and Windows
// put the app-settings ones under Application Support and %APPDATA%).

const CLAUDE_DESKTOP: Fixture = Fixture {
    rel_path: ".config/Claude/claude_desktop_config.json",
    created: r#"{
  "mcpServers": {
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Documents"]
    }
  }
}
"#,
    realistic_installed: r#"{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Documents"]
    },
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    no_container: "{\n  \"globalShortcut\": \"Alt+Space\"\n}\n",
    stale: r#"{
  "mcpServers": {
    "memory-bank": { "command": "/old/memory-bank", "args": ["mcp"], "env": {"MEMORY_BANK_LOG": "debug"} }
  }
}
"#,
    stale_updated: r#"{
  "mcpServers": {
    "memory-bank": { "command": "{BIN}", "args": ["mcp"], "env": {"MEMORY_BANK_LOG": "debug"} }
  }
}
"#,
    // Read with JSON.parse: a comment is an error.
    syntax_error: ("{\n  \"globalShortcut\": \"\",\n  // note\n  \"x\": 1\n}\n", 3),
    wrong_shape: "{\n  \"mcpServers\": []\n}\n",
};

const CURSOR: Fixture = Fixture {
    rel_path: ".cursor/mcp.json",
    created: r#"{
  "mcpServers": {
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"{
  "mcpServers": {
    // browser automation
    "playwright": {
      "command": "npx",
      "args": ["-y", "@playwright/mcp@latest"]
    },
    "context7": {
      "url": "https://mcp.context7.com/mcp",
      "headers": { "CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}" }
    }
  }
}
"#,
    realistic_installed: r#"{
  "mcpServers": {
    // browser automation
    "playwright": {
      "command": "npx",
      "args": ["-y", "@playwright/mcp@latest"]
    },
    "context7": {
      "url": "https://mcp.context7.com/mcp",
      "headers": { "CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}" }
    },
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    no_container: "{\n  // nothing yet\n}\n",
    stale: r#"{
  "mcpServers": {
    "memory-bank": { "command": "/old/memory-bank", "args": ["mcp"], "env": {"X": "1"} }
  }
}
"#,
    stale_updated: r#"{
  "mcpServers": {
    "memory-bank": { "command": "{BIN}", "args": ["mcp"], "env": {"X": "1"} }
  }
}
"#,
    syntax_error: ("{\n  \"mcpServers\": {\n    \"a\": 1\n    \"b\": 2\n  }\n}\n", 3),
    wrong_shape: "{\n  \"mcpServers\": \"memory-bank\"\n}\n",
};

const VSCODE: Fixture = Fixture {
    rel_path: ".config/Code/User/mcp.json",
    created: r#"{
  "servers": {
    "memory-bank": {
      "type": "stdio",
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"{
  "inputs": [
    { "type": "promptString", "id": "github-token", "description": "GitHub token", "password": true },
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer ${input:github-token}" },
    },
  },
}
"#,
    realistic_installed: r#"{
  "inputs": [
    { "type": "promptString", "id": "github-token", "description": "GitHub token", "password": true },
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer ${input:github-token}" },
    },
    "memory-bank": {
      "type": "stdio",
      "command": "{BIN}",
      "args": ["mcp"],
    },
  },
}
"#,
    no_container: "{\n  \"inputs\": []\n}\n",
    stale: r#"{
  "servers": {
    "memory-bank": { "type": "stdio", "command": "/old/memory-bank", "args": ["mcp"], "envFile": "${userHome}/.mb.env" }
  }
}
"#,
    stale_updated: r#"{
  "servers": {
    "memory-bank": { "type": "stdio", "command": "{BIN}", "args": ["mcp"], "envFile": "${userHome}/.mb.env" }
  }
}
"#,
    syntax_error: ("{\n  \"servers\": {\n  \"x\" 1\n}\n", 3),
    wrong_shape: "{\n  \"servers\": 7\n}\n",
};

const WINDSURF: Fixture = Fixture {
    rel_path: ".codeium/windsurf/mcp_config.json",
    created: r#"{
  "mcpServers": {
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"{
  "mcpServers": {
    "git": {
      "command": "uvx",
      "args": ["mcp-server-git"],
      "disabled": false,
      "env": {}
    },
    "zapier": {
      "serverUrl": "https://actions.zapier.com/mcp/sse"
    }
  }
}
"#,
    realistic_installed: r#"{
  "mcpServers": {
    "git": {
      "command": "uvx",
      "args": ["mcp-server-git"],
      "disabled": false,
      "env": {}
    },
    "zapier": {
      "serverUrl": "https://actions.zapier.com/mcp/sse"
    },
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    no_container: "{\n  \"version\": 1\n}\n",
    stale: r#"{
  "mcpServers": {
    "memory-bank": { "command": "/old/memory-bank", "args": ["mcp"], "disabled": true }
  }
}
"#,
    stale_updated: r#"{
  "mcpServers": {
    "memory-bank": { "command": "{BIN}", "args": ["mcp"], "disabled": true }
  }
}
"#,
    syntax_error: ("{\n  \"mcpServers\": {},\n  /* no */\n}\n", 3),
    wrong_shape: "{\n  \"mcpServers\": null\n}\n",
};

const ZED: Fixture = Fixture {
    rel_path: ".config/zed/settings.json",
    created: r#"{
  "context_servers": {
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"]
    }
  }
}
"#,
    realistic: r#"// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "ui_font_size": 16,
  "buffer_font_size": 15,
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark",
  },
  "context_servers": {
    "postgres": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/app"],
      "env": {},
    },
  },
}
"#,
    realistic_installed: r#"// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "ui_font_size": 16,
  "buffer_font_size": 15,
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark",
  },
  "context_servers": {
    "postgres": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/app"],
      "env": {},
    },
    "memory-bank": {
      "command": "{BIN}",
      "args": ["mcp"],
    },
  },
}
"#,
    no_container: "// Zed settings\n{\n  \"vim_mode\": true\n}\n",
    stale: r#"{
  "context_servers": {
    "memory-bank": { "command": "/old/memory-bank", "args": ["mcp"], "env": {"RUST_LOG": "warn"} }
  }
}
"#,
    stale_updated: r#"{
  "context_servers": {
    "memory-bank": { "command": "{BIN}", "args": ["mcp"], "env": {"RUST_LOG": "warn"} }
  }
}
"#,
    syntax_error: ("{\n  \"vim_mode\": true\n  \"x\": 1\n}\n", 2),
    wrong_shape: "{\n  \"context_servers\": [\"memory-bank\"]\n}\n",
};

//! stdout carries JSON Lines only; an error record is the last thing a driver prints.

use std::fmt::Display;
use std::fmt::Write as _;
use std::io::Write as _;

/// One flat JSON object, built by hand (no serde: fewer crates to build).
pub struct Rec(String);

impl Rec {
    pub fn new(ty: &str) -> Rec {
        let mut s = String::with_capacity(256);
        s.push_str("{\"type\":");
        push_json_str(&mut s, ty);
        Rec(s)
    }
    pub fn int<T: Display>(mut self, key: &str, v: T) -> Rec {
        let _ = write!(self.0, ",\"{}\":{}", key, v);
        self
    }
    pub fn str(mut self, key: &str, v: &str) -> Rec {
        let _ = write!(self.0, ",\"{}\":", key);
        push_json_str(&mut self.0, v);
        self
    }
    pub fn strs(mut self, key: &str, v: &[&str]) -> Rec {
        let _ = write!(self.0, ",\"{}\":[", key);
        for (i, s) in v.iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            push_json_str(&mut self.0, s);
        }
        self.0.push(']');
        self
    }
    /// Written and flushed at once, so that nothing is lost if the process is killed later.
    pub fn emit(mut self) {
        self.0.push_str("}\n");
        let out = std::io::stdout();
        let mut lock = out.lock();
        let _ = lock.write_all(self.0.as_bytes());
        let _ = lock.flush();
    }
}

pub(crate) fn push_json_str(s: &mut String, v: &str) {
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BadParam,
    UnknownWorkload,
    Unsupported,
    Limit,
    Failure,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::BadParam => "bad_param",
            Kind::UnknownWorkload => "unknown_workload",
            Kind::Unsupported => "unsupported",
            Kind::Limit => "limit",
            Kind::Failure => "failure",
        }
    }
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::BadParam | Kind::UnknownWorkload | Kind::Unsupported => 2,
            Kind::Limit => 3,
            Kind::Failure => 1,
        }
    }
}

#[derive(Debug)]
pub struct Fail {
    pub kind: Kind,
    pub message: String,
}

pub fn fail<T>(kind: Kind, message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail { kind, message: message.into() })
}

/// Print the error record and exit with the contract's code. Nothing follows it.
pub fn die(f: &Fail) -> ! {
    Rec::new("error").str("kind", f.kind.name()).str("message", &f.message).emit();
    std::process::exit(f.kind.exit_code());
}

/// A panic anywhere becomes a `failure` error record instead of a bare abort.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = format!("internal panic: {}", info);
        eprintln!("{}", msg);
        Rec::new("error").str("kind", "failure").str("message", &msg).emit();
        std::process::exit(1);
    }));
}

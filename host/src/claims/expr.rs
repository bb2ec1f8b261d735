//! The small expression language of a claim's `ours` and `test`: arithmetic, comparisons and
//! logic over the claim's named values.
//!
//! ```text
//! ph / pr - 1 >= 0.28 and min(a - b, b - c) > 0
//! ```
//!
//! Numbers are `f64`; `+ - * /`, unary `-`, the comparisons `< <= > >= == !=` (a number
//! compared gives a truth value), `and`, `or`, `not`, parentheses, and the functions `min`,
//! `max` (any number of arguments) and `abs`. A truth value is not a number and a number is
//! not a truth value: `ours + (a > b)` is an error, as is a test that gives a number.
//!
//! Written here rather than taken from a crate: the well-known evaluator (evalexpr) is
//! AGPL-licensed since its version 12, which this MIT/Apache project cannot take, and the
//! float-only ones have no comparisons or logic. The whole language is this file.

use std::collections::BTreeMap;
use std::fmt;

/// A value of an expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A number.
    Num(f64),
    /// A truth value.
    Bool(bool),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number written in the expression.
    Num(f64),
    /// A named value.
    Var(String),
    /// `-e`.
    Neg(Box<Expr>),
    /// `not e`.
    Not(Box<Expr>),
    /// `a op b`.
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `f(args)`.
    Call(String, Vec<Expr>),
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `and`
    And,
    /// `or`
    Or,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            // An exponent: 1e6, 2.5e-3.
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = &s[start..i];
            let x: f64 = text
                .parse()
                .map_err(|_| format!("{text:?} is not a number"))?;
            out.push(Tok::Num(x));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].to_string()));
        } else {
            let two = s.get(i..i + 2).unwrap_or("");
            let op2 = ["<=", ">=", "==", "!="].into_iter().find(|o| *o == two);
            if let Some(o) = op2 {
                out.push(Tok::Op(o));
                i += 2;
                continue;
            }
            let tok = match c {
                '+' => Tok::Op("+"),
                '-' => Tok::Op("-"),
                '*' => Tok::Op("*"),
                '/' => Tok::Op("/"),
                '<' => Tok::Op("<"),
                '>' => Tok::Op(">"),
                '(' => Tok::LParen,
                ')' => Tok::RParen,
                ',' => Tok::Comma,
                _ => return Err(format!("unexpected character {c:?} at column {}", i + 1)),
            };
            out.push(tok);
            i += 1;
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if w == word)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut e = self.and()?;
        while self.is_ident("or") {
            self.at += 1;
            e = Expr::Bin(Op::Or, Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut e = self.not()?;
        while self.is_ident("and") {
            self.at += 1;
            e = Expr::Bin(Op::And, Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.is_ident("not") {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.cmp()
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let a = self.sum()?;
        let op = match self.peek() {
            Some(Tok::Op("<")) => Op::Lt,
            Some(Tok::Op("<=")) => Op::Le,
            Some(Tok::Op(">")) => Op::Gt,
            Some(Tok::Op(">=")) => Op::Ge,
            Some(Tok::Op("==")) => Op::Eq,
            Some(Tok::Op("!=")) => Op::Ne,
            _ => return Ok(a),
        };
        self.at += 1;
        let b = self.sum()?;
        Ok(Expr::Bin(op, Box::new(a), Box::new(b)))
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.prod()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("+")) => Op::Add,
                Some(Tok::Op("-")) => Op::Sub,
                _ => return Ok(e),
            };
            self.at += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.prod()?));
        }
    }

    fn prod(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("*")) => Op::Mul,
                Some(Tok::Op("/")) => Op::Div,
                _ => return Ok(e),
            };
            self.at += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.peek() == Some(&Tok::Op("-")) {
            self.at += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Tok::Num(x)) => Ok(Expr::Num(x)),
            Some(Tok::LParen) => {
                let e = self.or()?;
                match self.next() {
                    Some(Tok::RParen) => Ok(e),
                    _ => Err("a '(' is not closed".into()),
                }
            }
            Some(Tok::Ident(name)) if matches!(name.as_str(), "and" | "or" | "not") => {
                Err(format!("'{name}' where a value was expected"))
            }
            Some(Tok::Ident(name)) => {
                if self.peek() != Some(&Tok::LParen) {
                    return Ok(Expr::Var(name));
                }
                self.at += 1;
                let mut args = Vec::new();
                if self.peek() == Some(&Tok::RParen) {
                    self.at += 1;
                } else {
                    loop {
                        args.push(self.or()?);
                        match self.next() {
                            Some(Tok::Comma) => continue,
                            Some(Tok::RParen) => break,
                            _ => return Err(format!("{name}(...): expected ',' or ')'")),
                        }
                    }
                }
                match (name.as_str(), args.len()) {
                    ("abs", 1) | ("min", 1..) | ("max", 1..) => Ok(Expr::Call(name, args)),
                    ("abs" | "min" | "max", n) => {
                        Err(format!("{name}() does not take {n} arguments"))
                    }
                    _ => Err(format!("unknown function {name}() (known: min, max, abs)")),
                }
            }
            Some(t) => Err(format!("unexpected {t:?}")),
            None => Err("the expression ends too early".into()),
        }
    }
}

/// Parses `text`.
pub fn parse(text: &str) -> Result<Expr, String> {
    let mut p = Parser {
        toks: lex(text)?,
        at: 0,
    };
    let e = p.or()?;
    match p.peek() {
        None => Ok(e),
        Some(t) => Err(format!("unexpected {t:?} after a whole expression")),
    }
}

impl Expr {
    /// The names of the values the expression reads, in order of first use.
    pub fn vars(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(v) => {
                if !out.contains(&v.as_str()) {
                    out.push(v);
                }
            }
            Expr::Neg(e) | Expr::Not(e) => e.collect(out),
            Expr::Bin(_, a, b) => {
                a.collect(out);
                b.collect(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect(out)),
        }
    }

    /// The value of the expression with the named values of `env`.
    pub fn eval(&self, env: &BTreeMap<String, f64>) -> Result<Value, String> {
        let num = |e: &Expr| -> Result<f64, String> {
            match e.eval(env)? {
                Value::Num(x) => Ok(x),
                Value::Bool(_) => Err("a truth value where a number was expected".into()),
            }
        };
        let truth = |e: &Expr| -> Result<bool, String> {
            match e.eval(env)? {
                Value::Bool(b) => Ok(b),
                Value::Num(_) => Err("a number where a truth value was expected".into()),
            }
        };
        Ok(match self {
            Expr::Num(x) => Value::Num(*x),
            Expr::Var(v) => Value::Num(*env.get(v).ok_or_else(|| format!("no value named {v:?}"))?),
            Expr::Neg(e) => Value::Num(-num(e)?),
            Expr::Not(e) => Value::Bool(!truth(e)?),
            Expr::Bin(Op::And, a, b) => Value::Bool(truth(a)? && truth(b)?),
            Expr::Bin(Op::Or, a, b) => Value::Bool(truth(a)? || truth(b)?),
            Expr::Bin(op, a, b) => {
                let (x, y) = (num(a)?, num(b)?);
                match op {
                    Op::Add => Value::Num(x + y),
                    Op::Sub => Value::Num(x - y),
                    Op::Mul => Value::Num(x * y),
                    Op::Div => Value::Num(x / y),
                    Op::Lt => Value::Bool(x < y),
                    Op::Le => Value::Bool(x <= y),
                    Op::Gt => Value::Bool(x > y),
                    Op::Ge => Value::Bool(x >= y),
                    Op::Eq => Value::Bool(x == y),
                    Op::Ne => Value::Bool(x != y),
                    Op::And | Op::Or => unreachable!("handled above"),
                }
            }
            Expr::Call(f, args) => {
                let xs = args.iter().map(num).collect::<Result<Vec<_>, _>>()?;
                match f.as_str() {
                    "abs" => Value::Num(xs[0].abs()),
                    "min" => Value::Num(xs.iter().copied().fold(f64::INFINITY, f64::min)),
                    "max" => Value::Num(xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                    _ => return Err(format!("unknown function {f}()")),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn ev(s: &str, e: &BTreeMap<String, f64>) -> Value {
        parse(s).unwrap().eval(e).unwrap()
    }

    #[test]
    fn arithmetic_follows_precedence() {
        let e = env(&[("a", 2.0), ("b", 3.0)]);
        assert_eq!(ev("a + b * 2", &e), Value::Num(8.0));
        assert_eq!(ev("(a + b) * 2", &e), Value::Num(10.0));
        assert_eq!(ev("-a - -b", &e), Value::Num(1.0));
        assert_eq!(ev("b / a - 1", &e), Value::Num(0.5));
        assert_eq!(ev("1.5e1 + 2e-1", &e), Value::Num(15.2));
        assert_eq!(
            ev("min(a, b, 1) + max(a, b) + abs(-4)", &e),
            Value::Num(8.0)
        );
    }

    #[test]
    fn comparisons_and_logic() {
        let e = env(&[("a", 2.0), ("b", 3.0)]);
        assert_eq!(ev("a < b and b <= 3", &e), Value::Bool(true));
        assert_eq!(ev("a > b or not (a == 2)", &e), Value::Bool(false));
        assert_eq!(ev("not a > b", &e), Value::Bool(true));
        assert_eq!(ev("a != b", &e), Value::Bool(true));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = env(&[("a", 2.0)]);
        assert!(parse("a +").unwrap_err().contains("ends too early"));
        assert!(parse("a $ 1").unwrap_err().contains("unexpected character"));
        assert!(parse("foo(a)").unwrap_err().contains("unknown function"));
        assert!(parse("(a + 1").unwrap_err().contains("not closed"));
        assert!(parse("a 1")
            .unwrap_err()
            .contains("after a whole expression"));
        let missing = parse("b > 1").unwrap().eval(&e).unwrap_err();
        assert!(missing.contains("no value named \"b\""), "{missing}");
        let mixed = parse("a + (a > 1)").unwrap().eval(&e).unwrap_err();
        assert!(mixed.contains("truth value where a number"), "{mixed}");
        let notbool = parse("not a").unwrap().eval(&e).unwrap_err();
        assert!(notbool.contains("number where a truth value"), "{notbool}");
    }

    #[test]
    fn vars_lists_each_name_once() {
        let e = parse("min(a - b, b - c) > a").unwrap();
        assert_eq!(e.vars(), vec!["a", "b", "c"]);
    }

    proptest::proptest! {
        /// A comparison and its negation never agree: every test can fail.
        #[test]
        fn a_test_and_its_negation_disagree(a in -1e6f64..1e6, b in -1e6f64..1e6) {
            let e = env(&[("a", a), ("b", b)]);
            for t in ["a > b", "a >= b", "a < b + 1", "a / (abs(b) + 1) <= 0.5"] {
                let v = ev(t, &e);
                let n = ev(&format!("not ({t})"), &e);
                proptest::prop_assert_ne!(v, n);
            }
        }
    }
}

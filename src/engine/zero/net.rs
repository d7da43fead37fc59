//! The policy/value network: a small residual convolutional net over one board shape,
//! run and trained on the CPU with candle.

use std::{collections::HashMap, path::Path};

use candle_core::{D, DType, Device, Tensor};
use candle_nn::{Conv2d, Conv2dConfig, Linear, Module, VarBuilder, VarMap};
use thiserror::Error;

use crate::engine::{Node, SquareSet};
use crate::{GameKind, Shape, Variant, WinRule};

/// Planes a position is given to the net as: the side to move's discs, the opponent's,
/// the side to move's legal moves, and a plane of ones (so the first layer can tell the
/// board's edge from an empty square: convolutions pad with zeros).
pub const PLANES: usize = 4;

/// What a file's metadata says it is, so a net is never run on a game it was not made for.
const FORMAT: &str = "othello zero net";

/// The shape of a net: the kind of game it plays and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// The board, rules and win rule it is for (its heads are sized to the board).
    pub kind: GameKind,
    /// Filters of every convolution of the trunk.
    pub channels: usize,
    /// Residual blocks (two 3 × 3 convolutions each) after the first convolution.
    pub blocks: usize,
}

impl NetConfig {
    /// Squares of the board: the policy has one output for each, and one for a pass.
    pub fn squares(self) -> usize {
        self.kind.shape.cells()
    }

    /// Outputs of the policy head: every square, then the pass.
    pub fn moves(self) -> usize {
        self.squares() + 1
    }

    /// Weights a net of this shape holds, in all.
    pub fn parameters(self) -> usize {
        let (c, s) = (self.channels, self.squares());
        let input = c * PLANES * 9 + c;
        let blocks = self.blocks * 2 * (c * c * 9 + c);
        let policy = (2 * c + 2) + 2 * s * self.moves() + self.moves();
        let value = (c + 1) + (s * c + c) + (c + 1);
        input + blocks + policy + value
    }
}

/// Why a net could not be made, loaded or saved.
#[derive(Debug, Error)]
pub enum NetError {
    /// Reading or writing its file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file that is not a net of this program, or a damaged one.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The tensor library.
    #[error("network: {0}")]
    Tensor(#[from] candle_core::Error),
}

/// A position as the net reads it, [`PLANES`] planes of the board's squares (row by row),
/// with the legal moves' policy indices for masking its output.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    /// `PLANES * squares` values, 0 or 1.
    pub planes: Vec<f32>,
    /// Policy indices of the legal moves (the pass's, `squares`, when there is none).
    pub legal: Vec<usize>,
}

/// The policy index of `square` on `shape`: its row-major place.
pub fn policy_index(shape: Shape, square: crate::Square) -> usize {
    usize::from(square.row()) * usize::from(shape.columns()) + usize::from(square.column())
}

/// `node` as the net reads it.
pub fn encode<N: Node>(node: &N) -> Encoded {
    let shape = node.layout().shape;
    let squares = shape.cells();
    let mut planes = vec![0.0; PLANES * squares];
    let mut mark = |plane: usize, mut set: N::Set| {
        let mut indices = Vec::new();
        while let Some(index) = set.pop() {
            let at = policy_index(shape, node.square(index));
            planes[plane * squares + at] = 1.0;
            indices.push(at);
        }
        indices
    };
    mark(0, node.player());
    mark(1, node.opponent());
    let mut legal = mark(2, node.moves());
    planes[3 * squares..].fill(1.0);
    legal.sort_unstable();
    if legal.is_empty() {
        legal.push(squares);
    }
    Encoded { planes, legal }
}

/// What the net says of a position: a probability for each legal move (in the order of
/// [`Encoded::legal`]) and the value for the side to move, from -1 (lost) to 1 (won).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Probabilities of the legal moves, summing to 1.
    pub priors: Vec<f32>,
    /// The expected result for the side to move.
    pub value: f32,
}

/// The network: its weights (a candle `VarMap`, trainable) and its layers.
pub struct Net {
    config: NetConfig,
    vars: VarMap,
    input: Conv2d,
    blocks: Vec<(Conv2d, Conv2d)>,
    policy_conv: Conv2d,
    policy: Linear,
    value_conv: Conv2d,
    value_hidden: Linear,
    value: Linear,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net").field("config", &self.config).finish()
    }
}

impl Net {
    /// A net of `config` with fresh random weights.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn new(config: NetConfig) -> Result<Net, NetError> {
        let vars = VarMap::new();
        let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
        let same = Conv2dConfig {
            padding: 1,
            ..Conv2dConfig::default()
        };
        let (channels, squares) = (config.channels, config.squares());
        let input = candle_nn::conv2d(PLANES, channels, 3, same, vb.pp("input"))?;
        let blocks = (0..config.blocks)
            .map(|block| {
                let vb = vb.pp(format!("block{block}"));
                Ok((
                    candle_nn::conv2d(channels, channels, 3, same, vb.pp("a"))?,
                    candle_nn::conv2d(channels, channels, 3, same, vb.pp("b"))?,
                ))
            })
            .collect::<Result<Vec<_>, candle_core::Error>>()?;
        let one = Conv2dConfig::default();
        let policy_conv = candle_nn::conv2d(channels, 2, 1, one, vb.pp("policy_conv"))?;
        let policy = candle_nn::linear(2 * squares, config.moves(), vb.pp("policy"))?;
        let value_conv = candle_nn::conv2d(channels, 1, 1, one, vb.pp("value_conv"))?;
        let value_hidden = candle_nn::linear(squares, channels, vb.pp("value_hidden"))?;
        let value = candle_nn::linear(channels, 1, vb.pp("value"))?;
        Ok(Net {
            config,
            vars,
            input,
            blocks,
            policy_conv,
            policy,
            value_conv,
            value_hidden,
            value,
        })
    }

    /// A net of `config` whose first weights follow from `seed` (uniform within
    /// ±1/√fan-in, biases zero), so that a run starts the same way every time.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn seeded(config: NetConfig, seed: u64) -> Result<Net, NetError> {
        use rand::{RngExt, SeedableRng};
        let net = Net::new(config)?;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let data = net.vars.data().lock().expect("weights");
        let mut names: Vec<&String> = data.keys().collect();
        names.sort();
        for name in names {
            let var = &data[name];
            let dims = var.dims().to_vec();
            let values: Vec<f32> = if name.ends_with(".bias") {
                vec![0.0; var.elem_count()]
            } else {
                let fan_in: usize = dims[1..].iter().product();
                let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
                (0..var.elem_count())
                    .map(|_| rng.random_range(-bound..bound))
                    .collect()
            };
            var.set(&Tensor::from_vec(values, dims, &Device::Cpu)?)?;
        }
        drop(data);
        Ok(net)
    }

    /// Its shape and game.
    pub fn config(&self) -> NetConfig {
        self.config
    }

    /// Its weights, for an optimiser.
    pub fn vars(&self) -> &VarMap {
        &self.vars
    }

    /// Weights it holds, in all.
    pub fn parameters(&self) -> usize {
        self.vars
            .all_vars()
            .iter()
            .map(|var| var.elem_count())
            .sum()
    }

    /// The heads' raw outputs for a batch of `batch` positions given as their planes one
    /// after another: policy logits `(batch, moves)` and values `(batch,)` in -1..1.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn forward(&self, planes: &Tensor) -> Result<(Tensor, Tensor), NetError> {
        let mut x = self.input.forward(planes)?.relu()?;
        for (a, b) in &self.blocks {
            let y = b.forward(&a.forward(&x)?.relu()?)?;
            x = (x + y)?.relu()?;
        }
        let logits = self
            .policy
            .forward(&self.policy_conv.forward(&x)?.relu()?.flatten_from(1)?)?;
        let value = self.value_conv.forward(&x)?.relu()?.flatten_from(1)?;
        let value = self.value_hidden.forward(&value)?.relu()?;
        let value = self.value.forward(&value)?.tanh()?.squeeze(D::Minus1)?;
        Ok((logits, value))
    }

    /// The planes of `positions` as one input tensor.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn input(&self, planes: Vec<f32>, batch: usize) -> Result<Tensor, NetError> {
        let shape = self.config.kind.shape;
        Ok(Tensor::from_vec(
            planes,
            (
                batch,
                PLANES,
                usize::from(shape.rows()),
                usize::from(shape.columns()),
            ),
            &Device::Cpu,
        )?)
    }

    /// What the net says of each of `positions`, in one batch: priors over their legal
    /// moves (a softmax of the policy over those alone) and values.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn evaluate(&self, positions: &[&Encoded]) -> Result<Vec<Verdict>, NetError> {
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        let planes = positions
            .iter()
            .flat_map(|position| position.planes.iter().copied())
            .collect();
        let (logits, values) = self.forward(&self.input(planes, positions.len())?)?;
        let logits = logits.to_vec2::<f32>()?;
        let values = values.to_vec1::<f32>()?;
        Ok(positions
            .iter()
            .zip(logits)
            .zip(values)
            .map(|((position, logits), value)| {
                let chosen: Vec<f32> = position.legal.iter().map(|&i| logits[i]).collect();
                let top = chosen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let exp: Vec<f32> = chosen.iter().map(|&l| (l - top).exp()).collect();
                let sum: f32 = exp.iter().sum();
                Verdict {
                    priors: exp.iter().map(|e| e / sum).collect(),
                    value,
                }
            })
            .collect())
    }

    /// The net as a file's bytes (safetensors, with its game and size in the metadata).
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NetError> {
        let kind = self.config.kind;
        let metadata = HashMap::from([
            ("format".to_owned(), FORMAT.to_owned()),
            ("rules".to_owned(), kind.variant.name().to_owned()),
            ("size".to_owned(), kind.shape.to_string()),
            ("win".to_owned(), kind.rule.name().to_owned()),
            ("channels".to_owned(), self.config.channels.to_string()),
            ("blocks".to_owned(), self.config.blocks.to_string()),
        ]);
        let data = self.vars.data().lock().expect("weights");
        let tensors: Vec<(String, Tensor)> = data
            .iter()
            .map(|(name, var)| (name.clone(), var.as_tensor().clone()))
            .collect();
        drop(data);
        safetensors::serialize(tensors, Some(metadata)).map_err(|error| {
            NetError::Tensor(candle_core::Error::Msg(format!("saving a net: {error}")))
        })
    }

    /// A short name for exactly these weights (16 hex digits of a SHA-256 over the size and
    /// every tensor, in name order), so that a result measured with a net is never taken
    /// for another's.
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn fingerprint(&self) -> Result<String, NetError> {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        hash.update(format!(
            "{} {} {}",
            self.config.kind, self.config.channels, self.config.blocks
        ));
        let data = self.vars.data().lock().expect("weights");
        let mut names: Vec<&String> = data.keys().collect();
        names.sort();
        for name in names {
            hash.update(name.as_bytes());
            let values = data[name].as_tensor().flatten_all()?.to_vec1::<f32>()?;
            for value in values {
                hash.update(value.to_le_bytes());
            }
        }
        Ok(hash.finalize()[..8]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect())
    }

    /// A net read from a file's bytes; `path` names it in errors.
    ///
    /// # Errors
    /// If the bytes are not a net of this program or are damaged.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Net, NetError> {
        let format = |message: String| NetError::Format {
            path: path.display().to_string(),
            message,
        };
        let (_, metadata) = safetensors::SafeTensors::read_metadata(bytes)
            .map_err(|error| format(format!("not a net ({error})")))?;
        let info = metadata
            .metadata()
            .clone()
            .filter(|info| info.get("format").map(String::as_str) == Some(FORMAT))
            .ok_or_else(|| format("not a net of this program (no othello zero metadata)".into()))?;
        let field = |name: &str| {
            info.get(name)
                .ok_or_else(|| format(format!("its metadata has no {name}")))
        };
        let count = |name: &str| -> Result<usize, NetError> {
            field(name)?
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=256).contains(n))
                .ok_or_else(|| format(format!("its {name} is not a small number")))
        };
        let variant: Variant = field("rules")?
            .parse()
            .map_err(|_| format("unknown rules".into()))?;
        let shape: Shape = field("size")?
            .parse()
            .map_err(|_| format("unknown board size".into()))?;
        let rule =
            WinRule::from_name(field("win")?).map_err(|_| format("unknown win rule".into()))?;
        let config = NetConfig {
            kind: GameKind::new(variant, shape, rule),
            channels: count("channels")?,
            blocks: count("blocks")?,
        };
        let tensors = candle_core::safetensors::load_buffer(bytes, &Device::Cpu)
            .map_err(|error| format(format!("damaged ({error})")))?;
        // Sizes checked against the file before a net of the size it claims is made: what
        // is allocated is then no more than the file holds.
        let first = tensors
            .get("input.weight")
            .map(|tensor| tensor.dims().to_vec());
        let held: usize = tensors.values().map(Tensor::elem_count).sum();
        if tensors.len() != 12 + 4 * config.blocks
            || first != Some(vec![config.channels, PLANES, 3, 3])
            || held != config.parameters()
        {
            return Err(format("its tensors do not match its metadata".into()));
        }
        let mut net = Net::new(config)?;
        let expected: Vec<(String, Vec<usize>)> = net
            .vars
            .data()
            .lock()
            .expect("weights")
            .iter()
            .map(|(name, var)| (name.clone(), var.dims().to_vec()))
            .collect();
        if tensors.len() != expected.len() {
            return Err(format(format!(
                "{} tensors where a net of this size has {}",
                tensors.len(),
                expected.len()
            )));
        }
        for (name, dims) in expected {
            let tensor = tensors
                .get(&name)
                .ok_or_else(|| format(format!("no tensor {name}")))?;
            if tensor.dims() != dims.as_slice() || tensor.dtype() != DType::F32 {
                return Err(format(format!("tensor {name} has the wrong size")));
            }
            // A weight that is not a number would make every output one.
            let finite = tensor
                .flatten_all()?
                .to_vec1::<f32>()?
                .iter()
                .all(|weight| weight.is_finite());
            if !finite {
                return Err(format(format!(
                    "tensor {name} holds weights that are not numbers"
                )));
            }
            net.vars.set_one(&name, tensor)?;
        }
        Ok(net)
    }

    /// Writes the net to `path` (through a temporary file, so a crash leaves the old one).
    ///
    /// # Errors
    /// If it cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        let io = |source| NetError::Io {
            path: path.display().to_string(),
            source,
        };
        let bytes = self.to_bytes()?;
        let partial = path.with_extension("partial");
        std::fs::write(&partial, bytes).map_err(io)?;
        std::fs::rename(&partial, path).map_err(io)
    }

    /// Reads the net in `path`.
    ///
    /// # Errors
    /// If it cannot be read or is not a net.
    pub fn load(path: &Path) -> Result<Net, NetError> {
        let bytes = std::fs::read(path).map_err(|source| NetError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Net::from_bytes(&bytes, path)
    }

    /// A copy with the same weights (for the gate's candidate).
    ///
    /// # Errors
    /// If the tensor library fails.
    pub fn duplicate(&self) -> Result<Net, NetError> {
        Net::from_bytes(&self.to_bytes()?, Path::new("(copy)"))
    }
}

//! Fitting the net to self-play's positions: the policy to the search's visit shares
//! (cross-entropy), the value to the games' results (squared error), with AdamW on random
//! mini-batches, each position seen through a random symmetry of the board.

use candle_core::{D, Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::{Rng, RngExt};

use super::replay::ZeroSample;
use crate::engine::symmetry::Symmetry;
use crate::engine::zero::{Net, NetError};

/// How a fit runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitSettings {
    /// Mini-batches.
    pub steps: usize,
    /// Positions in each.
    pub batch: usize,
    /// AdamW's step size.
    pub learning_rate: f64,
    /// AdamW's weight decay.
    pub weight_decay: f64,
}

/// The two losses, averaged over positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Cross-entropy of the policy against the visit shares.
    pub policy: f64,
    /// Squared error of the value against the results.
    pub value: f64,
}

impl Losses {
    /// Their sum, which the fit minimises.
    pub fn total(self) -> f64 {
        self.policy + self.value
    }
}

/// The optimiser for `net`'s weights.
///
/// # Errors
/// If the tensor library fails.
pub fn optimizer(net: &Net, settings: &FitSettings) -> Result<AdamW, NetError> {
    Ok(AdamW::new(
        net.vars().all_vars(),
        ParamsAdamW {
            lr: settings.learning_rate,
            weight_decay: settings.weight_decay,
            ..ParamsAdamW::default()
        },
    )?)
}

/// The losses of `net` on `batch` (positions as they are) and, with `optimizer`, one step
/// down their gradient.
fn step(
    net: &Net,
    batch: &[ZeroSample],
    optimizer: Option<&mut AdamW>,
) -> Result<Losses, NetError> {
    let moves = net.config().moves();
    let planes = batch
        .iter()
        .flat_map(|s| s.planes.iter().copied())
        .collect();
    let input = net.input(planes, batch.len())?;
    let policy: Vec<f32> = batch
        .iter()
        .flat_map(|s| s.policy.iter().copied())
        .collect();
    let policy = Tensor::from_vec(policy, (batch.len(), moves), &Device::Cpu)?;
    let value: Vec<f32> = batch.iter().map(|s| s.value).collect();
    let value = Tensor::from_vec(value, batch.len(), &Device::Cpu)?;
    let (logits, predicted) = net.forward(&input)?;
    let log_policy = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
    let policy_loss = (policy * log_policy)?.sum(D::Minus1)?.neg()?.mean_all()?;
    let value_loss = (predicted - value)?.sqr()?.mean_all()?;
    let losses = Losses {
        policy: f64::from(policy_loss.to_scalar::<f32>()?),
        value: f64::from(value_loss.to_scalar::<f32>()?),
    };
    if let Some(optimizer) = optimizer {
        optimizer.backward_step(&(policy_loss + value_loss)?)?;
    }
    Ok(losses)
}

/// Trains `net` on `samples` for `settings.steps` mini-batches; returns the losses
/// averaged over the steps.
///
/// # Errors
/// If the tensor library fails.
pub fn fit(
    net: &Net,
    optimizer: &mut AdamW,
    samples: &[ZeroSample],
    settings: &FitSettings,
    rng: &mut impl Rng,
) -> Result<Losses, NetError> {
    let shape = net.config().kind.shape;
    let symmetries = Symmetry::of(shape.rows(), shape.columns());
    let mut sum = Losses::default();
    if samples.is_empty() {
        return Ok(sum);
    }
    for _ in 0..settings.steps {
        let batch: Vec<ZeroSample> = (0..settings.batch)
            .map(|_| {
                let sample = &samples[rng.random_range(0..samples.len())];
                let symmetry = symmetries[rng.random_range(0..symmetries.len())];
                sample.transformed(symmetry, shape)
            })
            .collect();
        let losses = step(net, &batch, Some(optimizer))?;
        sum.policy += losses.policy;
        sum.value += losses.value;
    }
    Ok(Losses {
        policy: sum.policy / settings.steps.max(1) as f64,
        value: sum.value / settings.steps.max(1) as f64,
    })
}

/// The losses of `net` on `samples` (as they are), without training.
///
/// # Errors
/// If the tensor library fails.
pub fn losses(net: &Net, samples: &[ZeroSample]) -> Result<Losses, NetError> {
    let mut sum = Losses::default();
    for chunk in samples.chunks(512) {
        let losses = step(net, chunk, None)?;
        sum.policy += losses.policy * chunk.len() as f64;
        sum.value += losses.value * chunk.len() as f64;
    }
    let count = samples.len().max(1) as f64;
    Ok(Losses {
        policy: sum.policy / count,
        value: sum.value / count,
    })
}

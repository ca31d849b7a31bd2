//! The forward pass: token embeddings, candle's BERT layers, mean pooling, unit length.
//!
//! candle-transformers' `BertModel` is not used whole: it turns the attention mask into
//! `(1 - mask) * f32::MIN`, which in F16/BF16 is `0 * -inf = NaN` for every kept token.
//! So the embedding layer (three lookups and a layer norm) and the mask are built here,
//! with a finite bias (-10 000, as the original BERT), and the layers are candle's
//! `BertEncoder`. In F32 the result is the same as `BertModel`'s.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{embedding, layer_norm, Embedding, LayerNorm, VarBuilder};
use candle_transformers::models::bert::{BertEncoder, Config};

/// What a padded position adds to the attention scores: enough to make its weight 0
/// after the softmax, small enough for half precision (F16 tops out at 65 504).
const MASKED_BIAS: f64 = -10_000.0;

/// all-MiniLM-L6-v2's network, from model.safetensors.
pub(crate) struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    norm: LayerNorm,
    layers: BertEncoder,
    dtype: DType,
}

impl Bert {
    /// Reads the weights (names as Hugging Face's `BertModel` saves them, with or
    /// without a `bert.` prefix).
    pub(crate) fn load(vb: VarBuilder, config: &Config) -> Result<Bert> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let emb = vb.pp("embeddings");
        Ok(Bert {
            words: embedding(
                config.vocab_size,
                config.hidden_size,
                emb.pp("word_embeddings"),
            )?,
            positions: embedding(
                config.max_position_embeddings,
                config.hidden_size,
                emb.pp("position_embeddings"),
            )?,
            token_types: embedding(
                config.type_vocab_size,
                config.hidden_size,
                emb.pp("token_type_embeddings"),
            )?,
            norm: layer_norm(
                config.hidden_size,
                config.layer_norm_eps,
                emb.pp("LayerNorm"),
            )?,
            layers: BertEncoder::load(vb.pp("encoder"), config)?,
            dtype: vb.dtype(),
        })
    }

    /// Unit-length mean-pooled vectors, one row per text: `ids` and `mask` are
    /// `(texts, tokens)` u32, the mask 1 for a token and 0 for padding.
    pub(crate) fn embed(&self, ids: &Tensor, mask: &Tensor) -> Result<Vec<Vec<f32>>> {
        let (_, len) = ids.dims2()?;
        let positions = Tensor::arange(0u32, len as u32, &Device::Cpu)?;
        let hidden = self
            .words
            .forward(ids)?
            .add(&self.token_types.forward(&ids.zeros_like()?)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let hidden = self.norm.forward(&hidden)?;

        let kept = mask.to_dtype(DType::F32)?;
        // (texts, 1, 1, tokens): added to every head's scores of every query token.
        // 0 where a token is kept, MASKED_BIAS where it is padding.
        let bias = kept
            .affine(-MASKED_BIAS, MASKED_BIAS)?
            .unsqueeze(1)?
            .unsqueeze(1)?
            .to_dtype(self.dtype)?;
        let hidden = self.layers.forward(&hidden, &bias)?.to_dtype(DType::F32)?;

        // Mean over the tokens the mask keeps, then unit length.
        let weights = kept.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&weights)?.sum(1)?;
        let counts = weights.sum(1)?.clamp(1e-9f32, f32::MAX)?;
        let mean = summed.broadcast_div(&counts)?;
        let norms = mean
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12f32, f32::MAX)?;
        mean.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

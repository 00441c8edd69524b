"""Lightning-style manual optimization with separate optimizers for encoder and classifier.

`LightningModule` and `fit` are small stand-ins for pytorch_lightning (not installed).

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import torch
from torch import nn
from torch.nn import functional as F


class LightningModule(nn.Module):
    automatic_optimization = True

    def __init__(self):
        super().__init__()
        self._optimizers = None
        self.logged = {}

    def optimizers(self):
        return self._optimizers

    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)  # error: [double-backward]

    def log(self, name, value):
        self.logged[name] = float(value)


class SpeechCommandModel(LightningModule):
    def __init__(self, n_mels=8, n_classes=5):
        super().__init__()
        self.automatic_optimization = False
        self.encoder = nn.GRU(n_mels, 12, batch_first=True)
        self.classifier = nn.Linear(12, n_classes)

    def forward(self, mels):
        _, h = self.encoder(mels)
        return self.classifier(h[-1])

    def training_step(self, batch, batch_idx):
        enc_opt, cls_opt = self.optimizers()
        mels, labels = batch
        loss = F.cross_entropy(self(mels), labels)

        cls_opt.zero_grad()
        self.manual_backward(loss)
        cls_opt.step()

        enc_opt.zero_grad()
        self.manual_backward(loss)
        self.clip_gradients(enc_opt, 1.0)
        enc_opt.step()
        self.log("train_loss", loss.detach())

    def clip_gradients(self, optimizer, value):
        for group in optimizer.param_groups:
            torch.nn.utils.clip_grad_norm_(group["params"], value)

    def configure_optimizers(self):
        return (
            torch.optim.Adam(self.encoder.parameters(), lr=1e-4),
            torch.optim.Adam(self.classifier.parameters(), lr=1e-3),
        )


def fit(module, batches, max_epochs=2):
    module._optimizers = module.configure_optimizers()
    for _ in range(max_epochs):
        for batch_idx, batch in enumerate(batches):
            module.training_step(batch, batch_idx)
    return module.logged


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(4, 6, 8), torch.randint(0, 5, (4,))) for _ in range(2)]
    print(fit(SpeechCommandModel(), data))

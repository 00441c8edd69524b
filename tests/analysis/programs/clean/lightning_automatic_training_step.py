"""Lightning-style automatic optimization (stand-in classes; lightning is not installed):
`training_step` only returns the loss and the trainer does the single backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    def log(self, name, value, prog_bar=False):
        self.__dict__.setdefault("logged", {})[name] = float(value)


class LitClassifier(LightningModule):
    def __init__(self, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.model = nn.Sequential(nn.Linear(9, 24), nn.ReLU(), nn.Dropout(0.1), nn.Linear(24, 3))

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss.detach())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y))
        self.log("val_acc", (logits.argmax(1) == y).float().mean())

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.lr)
        return [opt], [torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)]


class Trainer:
    def __init__(self, max_epochs=2, gradient_clip_val=None):
        self.max_epochs, self.gradient_clip_val = max_epochs, gradient_clip_val

    def fit(self, module, train_loader, val_loader):
        (optimizer,), (scheduler,) = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(train_loader):
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                if self.gradient_clip_val:
                    torch.nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
                optimizer.step()
            scheduler.step()
            module.eval()
            with torch.no_grad():
                for batch_idx, batch in enumerate(val_loader):
                    module.validation_step(batch, batch_idx)
            print(epoch, module.logged)


if __name__ == "__main__":
    torch.manual_seed(0)
    train = [(torch.randn(8, 9), torch.randint(0, 3, (8,))) for _ in range(2)]
    Trainer(gradient_clip_val=0.5).fit(LitClassifier(), train, train[:1])

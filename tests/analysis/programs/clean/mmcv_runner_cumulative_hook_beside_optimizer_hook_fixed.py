"""A small MMCV-style runner: hooks built from config dicts run after every training iteration.

Twin of buggy/mmcv_runner_cumulative_hook_beside_optimizer_hook.py, configured as the
maintainer answered in mmcv issue #1379: the cumulative hook is the `optimizer_config`, so
one hook backwards each iteration's loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Hook:
    def after_train_iter(self, runner):
        pass


class OptimizerHook(Hook):
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        if self.grad_clip is not None:
            nn.utils.clip_grad_norm_(runner.model.parameters(), **self.grad_clip)
        runner.optimizer.step()


class GradientCumulativeOptimizerHook(OptimizerHook):
    def __init__(self, cumulative_iters=1, grad_clip=None):
        super().__init__(grad_clip)
        self.cumulative_iters = cumulative_iters

    def after_train_iter(self, runner):
        loss = runner.outputs["loss"] / self.cumulative_iters
        loss.backward()
        assert all(p.grad is not None for p in runner.model.parameters())
        if (runner.iter + 1) % self.cumulative_iters == 0:
            runner.optimizer.step()
            runner.optimizer.zero_grad()


HOOKS = {"OptimizerHook": OptimizerHook, "GradientCumulativeOptimizerHook": GradientCumulativeOptimizerHook}


def build_hook(cfg):
    cfg = dict(cfg)
    return HOOKS[cfg.pop("type", "OptimizerHook")](**cfg)


class Classifier(nn.Module):
    def __init__(self, d_in=8, n_classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 16), nn.ReLU(), nn.Linear(16, n_classes))

    def train_step(self, batch):
        x, y = batch
        return {"loss": F.cross_entropy(self.net(x), y), "num_samples": len(y)}


class EpochBasedRunner:
    def __init__(self, model, optimizer, optimizer_config, custom_hooks=()):
        self.model = model
        self.optimizer = optimizer
        self.iter = 0
        self.outputs = {}
        self.hooks = [build_hook(optimizer_config)] + [build_hook(cfg) for cfg in custom_hooks]

    def call_hook(self, fn_name):
        for hook in self.hooks:
            getattr(hook, fn_name)(self)

    def run(self, data_loader, epochs):
        for epoch in range(epochs):
            for batch in data_loader:
                self.outputs = self.model.train_step(batch)
                self.call_hook("after_train_iter")
                self.iter += 1
            print(f"epoch {epoch}: loss {self.outputs['loss'].item():.4f}")


def make_loader(g, n_batches=4, batch_size=8, d_in=8):
    return [(torch.randn(batch_size, d_in, generator=g), torch.randint(0, 3, (batch_size,), generator=g)) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    optimizer_config = dict(type="GradientCumulativeOptimizerHook", cumulative_iters=2)
    custom_hooks = []
    runner = EpochBasedRunner(model, optimizer, optimizer_config, custom_hooks)
    runner.run(make_loader(g), epochs=2)


if __name__ == "__main__":
    main()

"""Domain-adversarial training (DANN) without a gradient-reversal layer: two-phase update.

Phase 1 trains extractor+classifier on labelled source data, phase 2 trains
the extractor to fool the domain discriminator, reusing the phase-1 features.

Real report of this mechanism: https://github.com/naver-ai/StyleMapGAN/issues/16
Two losses from one forward pass (adv_loss and w_rec_loss) are backwarded one after the
other and the second backward raises; the reporter backwarded their sum instead.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 12), nn.ReLU())

    def forward(self, x):
        return self.net(x)


def main(epochs=2, lam=0.1):
    torch.manual_seed(0)
    extractor = FeatureExtractor()
    classifier = nn.Linear(12, 3)
    domain_disc = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 1))
    opt_task = torch.optim.Adam([*extractor.parameters(), *classifier.parameters()], lr=1e-3)
    opt_disc = torch.optim.Adam(domain_disc.parameters(), lr=1e-3)

    source_x, source_y = torch.randn(16, 10), torch.randint(0, 3, (16,))
    target_x = torch.randn(16, 10) + 0.5

    for epoch in range(epochs):
        feats_s = extractor(source_x)
        feats_t = extractor(target_x)

        task_loss = F.cross_entropy(classifier(feats_s), source_y)
        opt_task.zero_grad()
        task_loss.backward()
        opt_task.step()

        # discriminator learns to tell domains apart (features detached: fine)
        d_in = torch.cat([feats_s.detach(), feats_t.detach()])
        d_lbl = torch.cat([torch.ones(16, 1), torch.zeros(16, 1)])
        disc_loss = F.binary_cross_entropy_with_logits(domain_disc(d_in), d_lbl)
        opt_disc.zero_grad()
        disc_loss.backward()
        opt_disc.step()

        # extractor tries to confuse the discriminator on source features
        confusion = F.binary_cross_entropy_with_logits(domain_disc(feats_s), torch.full((16, 1), 0.5))
        opt_task.zero_grad()
        (lam * confusion).backward()  # error: [shared-graph-backward]
        opt_task.step()
        print(f"epoch {epoch}: task {task_loss.item():.3f} disc {disc_loss.item():.3f}")


if __name__ == "__main__":
    main()

"""Text classification with PGD adversarial training on the embedding table: after the
clean backward, K attack steps perturb the embeddings, re-run the model, and backward an
adversarial loss; the clean gradients are restored before the last one.

Twin of buggy/pgd_embedding_attack_loss_from_first_forward.py, fixed as PGD training is
meant to work (rather than with the retain_graph=True of the follow-up issue, which
trains on the clean logits): each attack step's loss is computed from that step's own
forward at the perturbed embeddings.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class PGD:
    def __init__(self, module, eps=1.0, alpha=0.3):
        self.module, self.eps, self.alpha = module, eps, alpha
        self.emb_backup, self.grad_backup = {}, {}

    def attack(self, is_first_attack=False):
        p = self.module.embedding.weight
        if is_first_attack:
            self.emb_backup["w"] = p.data.clone()
        norm = torch.norm(p.grad)
        if norm != 0:
            p.data.add_(self.alpha * p.grad / norm)
            delta = p.data - self.emb_backup["w"]
            p.data = self.emb_backup["w"] + delta * min(1.0, self.eps / (delta.norm().item() + 1e-12))

    def restore(self):
        self.module.embedding.weight.data = self.emb_backup.pop("w")

    def backup_grad(self):
        self.grad_backup = {n: p.grad.clone() for n, p in self.module.named_parameters() if p.grad is not None}

    def restore_grad(self):
        for n, p in self.module.named_parameters():
            if n in self.grad_backup:
                p.grad = self.grad_backup[n]


class TextClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        return self.head(self.embedding(input_ids).mean(1))


def get_train_loss(outputs, labels):
    return outputs, F.cross_entropy(outputs, labels)


def main(steps=3, k=3):
    torch.manual_seed(0)
    module = TextClassifier()
    pgd = PGD(module)
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-2)
    for step in range(steps):
        input_ids, labels = torch.randint(50, (16, 10)), torch.randint(3, (16,))
        outputs = module(input_ids)
        _, loss = get_train_loss(outputs, labels)
        loss.backward()
        pgd.backup_grad()
        for t in range(k):
            pgd.attack(is_first_attack=(t == 0))
            if t != k - 1:
                module.zero_grad()
            else:
                pgd.restore_grad()
            logits = module(input_ids)
            logits, loss_adv = get_train_loss(logits, labels)
            loss_adv.backward()
        assert module.embedding.weight.grad is not None
        pgd.restore()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {step}: loss {loss.item():.3f} adversarial {loss_adv.item():.3f}")


if __name__ == "__main__":
    main()

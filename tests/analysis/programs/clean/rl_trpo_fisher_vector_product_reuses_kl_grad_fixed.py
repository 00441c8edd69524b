"""TRPO policy step on a contextual bandit: natural-gradient direction by conjugate
gradient on Fisher-vector products, then a backtracking line search on the KL bound.

Twin of buggy/rl_trpo_fisher_vector_product_reuses_kl_grad.py, fixed as the report's
pull request does: the KL gradient is built once with create_graph=True and every
Fisher-vector product differentiates it with retain_graph=True -- the correct use of
retain_graph, since each conjugate-gradient iteration needs that same graph again.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical
from torch.nn.utils import parameters_to_vector, vector_to_parameters

OBS, ACTIONS, BATCH = 4, 3, 64


def conjugate_gradient(fvp, b, iters=6):
    x, r, p = torch.zeros_like(b), b.clone(), b.clone()
    rdotr = r @ r
    for _ in range(iters):
        ap = fvp(p)
        alpha = rdotr / (p @ ap)
        x, r = x + alpha * p, r - alpha * ap
        new_rdotr = r @ r
        p, rdotr = r + (new_rdotr / rdotr) * p, new_rdotr
    return x


def trpo_step(policy, obs, actions, advantages, max_kl=0.01, damping=0.1):
    params = list(policy.parameters())
    with torch.no_grad():
        old_logits = policy(obs)
    surrogate = (Categorical(logits=policy(obs)).log_prob(actions) * advantages).mean()
    grad = parameters_to_vector(torch.autograd.grad(surrogate, params))
    kl = torch.distributions.kl_divergence(Categorical(logits=old_logits), Categorical(logits=policy(obs))).mean()
    flat_grad_kl = parameters_to_vector(torch.autograd.grad(kl, params, create_graph=True))

    def fisher_vector_product(v):
        hv = torch.autograd.grad(flat_grad_kl @ v, params, retain_graph=True)
        return parameters_to_vector(hv) + damping * v

    step_dir = conjugate_gradient(fisher_vector_product, grad)
    step = step_dir * torch.sqrt(2 * max_kl / (step_dir @ fisher_vector_product(step_dir)))
    old = parameters_to_vector(params).detach()
    for fraction in (1.0, 0.5, 0.25, 0.125):
        vector_to_parameters(old + fraction * step, params)
        with torch.no_grad():
            new_kl = torch.distributions.kl_divergence(Categorical(logits=old_logits), Categorical(logits=policy(obs))).mean()
        if new_kl <= max_kl:
            return fraction
    vector_to_parameters(old, params)
    return 0.0


def main(iterations=3):
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    for it in range(iterations):
        obs = torch.randn(BATCH, OBS)
        with torch.no_grad():
            actions = Categorical(logits=policy(obs)).sample()
        rewards = (actions == obs[:, :ACTIONS].argmax(-1)).float()
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
        fraction = trpo_step(policy, obs, actions, advantages)
        assert fraction > 0
        print(it, rewards.mean().item(), fraction)


if __name__ == "__main__":
    main()

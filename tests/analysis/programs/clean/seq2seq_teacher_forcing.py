"""GRU encoder-decoder for a toy reversal task with teacher forcing
(PyTorch seq2seq tutorial style): per-step losses summed, one backward per batch.
"""

import random

import torch
import torch.nn as nn

SOS_token, VOCAB, HIDDEN = 0, 9, 16


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)

    def forward(self, x):
        return self.gru(self.embedding(x))


class DecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, token, hidden):
        output, hidden = self.gru(torch.relu(self.embedding(token)).unsqueeze(1), hidden)
        return self.out(output.squeeze(1)), hidden


def train_step(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion, teacher_forcing_ratio=0.5):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    _, hidden = encoder(src)
    decoder_input = torch.full((src.size(0),), SOS_token, dtype=torch.long)
    loss = 0
    use_tf = random.random() < teacher_forcing_ratio
    for t in range(tgt.size(1)):
        logits, hidden = decoder(decoder_input, hidden)
        loss += criterion(logits, tgt[:, t])
        if use_tf:
            decoder_input = tgt[:, t]
        else:
            decoder_input = logits.topk(1).indices.squeeze(-1).detach()
    loss.backward()
    nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
    nn.utils.clip_grad_norm_(decoder.parameters(), 1.0)
    enc_opt.step()
    dec_opt.step()
    return loss.item() / tgt.size(1)


def main(n_iters=3):
    random.seed(0)
    torch.manual_seed(0)
    encoder, decoder = EncoderRNN(), DecoderRNN()
    enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    dec_opt = torch.optim.Adam(decoder.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    print_loss_total = 0.0
    for it in range(1, n_iters + 1):
        src = torch.randint(1, VOCAB, (4, 5))
        print_loss_total += train_step(src, src.flip(1), encoder, decoder, enc_opt, dec_opt, criterion)
    print(f"avg loss {print_loss_total / n_iters:.4f}")


if __name__ == "__main__":
    main()

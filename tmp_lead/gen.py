import torch, torch.nn as nn
class Blk(nn.Module):
    def __init__(s):
        super().__init__(); s.conv=nn.Conv2d(3,4,3,padding=1); s.bn=nn.BatchNorm2d(4); s.fc=nn.Linear(4,2)
    def forward(s,x):
        y=torch.relu(s.bn(s.conv(x)))
        y=y.mean(dim=[2,3])
        return s.fc(y).view(x.size(0), -1)
m=Blk().eval()
x=torch.randn(2,3,8,8)
t=torch.jit.trace(m,x); torch.jit.save(t,'/src/tmp_lead/cnn_trace.pt')
f=torch.jit.freeze(torch.jit.trace(m,x)); torch.jit.save(f,'/src/tmp_lead/cnn_freeze.pt')
class CF(nn.Module):
    def __init__(s):
        super().__init__(); s.k=3; s.fc=nn.Linear(4,4)
    def forward(s, x):
        if bool(x.sum() > 0):
            y = s.fc(x)
        else:
            y = x * 2.0
        for i in range(s.k):
            y = y + float(i)
        n = x.size(0)
        for j in range(n):
            y = y * 1.5
        return y
torch.jit.save(torch.jit.script(CF()), '/src/tmp_lead/cf_script.pt')
l=nn.LSTM(4,5,batch_first=True)
torch.jit.save(torch.jit.trace(l,torch.randn(2,3,4)),'/src/tmp_lead/lstm_trace.pt')
